/**
 * Confinement under attack: random tool calls on random paths while a
 * second process swaps symbolic links in and out of the workdir as fast as
 * it can, and an async loop in this process plants new links between calls.
 * Whatever wins a race, no call may return outside content or change a file
 * outside the roots.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { makeSandbox, SECRET } from './fixture.js';

const box = makeSandbox();
let racer: ChildProcess | undefined;
let planting = true;

/** Flips `swap` (and `deep/swap`) between a real directory and a link to the secret directory. */
const RACE = `
mkdir -p real deep/real
echo inside > real/f.txt
echo inside > deep/real/f.txt
while true; do
  ln -sfn ../secret swap.new && mv -T swap.new swap
  rm -rf swap; mkdir -p swap; echo inside > swap/f.txt
  ln -sfn ../../secret deep/swap.new && mv -T deep/swap.new deep/swap
  rm -rf deep/swap; mkdir -p deep/swap; echo inside > deep/swap/f.txt
  ln -sfn ../secret/secret.txt file.new && mv -T file.new file.txt
  echo inside > file.txt.new && mv -T file.txt.new file.txt
done`;

async function plantLinks(): Promise<void> {
  let n = 0;
  while (planting) {
    const name = path.join(box.work, `planted${n % 4}`);
    rmSync(name, { force: true, recursive: true });
    try {
      if (n % 2 === 0) symlinkSync(n % 3 === 0 ? box.secret : path.join(box.secret, 'secret.txt'), name);
      else mkdirSync(name);
    } catch {
      // The racer or a tool may have made the name meanwhile.
    }
    n++;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const names = fc.constantFrom('swap', 'deep/swap', 'planted0', 'planted1', 'planted2', 'planted3', 'real', 'sub');
const leaf = fc.constantFrom('f.txt', 'secret.txt', 'new.txt', 'x/y.txt', '');
const target = fc.oneof(
  fc.tuple(names, leaf).map(([dir, file]) => (file === '' ? dir : `${dir}/${file}`)),
  fc.constantFrom('file.txt', 'link-out', 'dir-out/secret.txt', 'chain1/secret.txt', 'dangling', '.'),
);
const call = fc.oneof(
  target.map((p) => ({ name: 'read_file', args: { path: p } })),
  target.map((p) => ({ name: 'list_dir', args: { path: p } })),
  target.map((p) => ({ name: 'write_file', args: { path: p, content: 'written by the model\n' } })),
  target.map((p) => ({ name: 'edit_file', args: { path: p, old_string: 'inside', new_string: 'edited' } })),
  target.map((p) => ({ name: 'grep', args: { pattern: 'TOPSECRET|inside', path: p } })),
  fc.constantFrom('**/*.txt', 'swap/*', 'deep/**', 'planted*/**').map((p) => ({ name: 'glob', args: { pattern: p } })),
);

beforeAll(() => {
  racer = spawn('bash', ['-c', RACE], { cwd: box.work, stdio: 'ignore', detached: true });
});

afterAll(() => {
  planting = false;
  if (racer?.pid) process.kill(-racer.pid, 'SIGKILL');
  box.cleanup();
});

describe('racing symbolic links', () => {
  it('never lets a tool read or write outside the roots', async () => {
    const before = box.outsideSnapshot();
    const planter = plantLinks();
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
        for (const c of calls) {
          const out = await dispatchTool(c.name, c.args, box.ctx());
          expect(out.content).not.toContain(SECRET);
          expect(out.file?.text ?? '').not.toContain(SECRET);
        }
      }),
      { numRuns: 150 },
    );
    planting = false;
    await planter;
    expect(box.outsideSnapshot()).toEqual(before);
  }, 120_000);
});

describe('hard links', () => {
  it('a hard-linked file is read, but never written or edited', async () => {
    const outside = path.join(box.root, 'hard-outside.txt');
    writeFileSync(outside, 'outside inode\n');
    linkSync(outside, path.join(box.work, 'hard.txt'));
    const read = await dispatchTool('read_file', { path: 'hard.txt' }, box.ctx());
    expect(read.content).toBe('outside inode\n');
    const write = await dispatchTool('write_file', { path: 'hard.txt', content: 'new\n' }, box.ctx());
    expect(write).toMatchObject({ isError: true, code: 'file-hard-linked' });
    const edit = await dispatchTool(
      'edit_file',
      { path: 'hard.txt', old_string: 'outside', new_string: 'changed' },
      box.ctx(),
    );
    expect(edit).toMatchObject({ isError: true, code: 'file-hard-linked' });
    expect(readFileSync(outside, 'utf8')).toBe('outside inode\n');
    expect(readFileSync(path.join(box.work, 'hard.txt'), 'utf8')).toBe('outside inode\n');
  });
});
