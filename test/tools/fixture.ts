import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NO_READ_PATHS } from '../../src/tools/read-paths.js';
import type { ToolContext } from '../../src/tools/tool.js';

export const SECRET = 'TOPSECRET-42';

export interface Sandbox {
  root: string;
  work: string;
  secret: string;
  ctx(overrides?: Partial<ToolContext>): ToolContext;
  /** Every file under the temp root outside the workdir, with its content. */
  outsideSnapshot(): Record<string, string>;
  cleanup(): void;
}

function snapshot(dir: string, skip: string, out: Record<string, string> = {}): Record<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (p === skip) continue;
    if (entry.isDirectory()) snapshot(p, skip, out);
    else if (entry.isFile()) out[p] = readFileSync(p, 'utf8');
    else out[p] = '(link)';
  }
  return out;
}

/** A temp root holding `work/` (the workdir) and a sibling `secret/`, plus links out. */
export function makeSandbox(): Sandbox {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lev-tools-'));
  const work = path.join(root, 'work');
  const secret = path.join(root, 'secret');
  mkdirSync(path.join(work, 'sub'), { recursive: true });
  mkdirSync(secret);
  writeFileSync(path.join(secret, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(path.join(work, 'a.txt'), 'alpha\nbeta\ngamma\n');
  writeFileSync(path.join(work, 'sub', 'b.txt'), 'inside b\n');
  symlinkSync(path.join(secret, 'secret.txt'), path.join(work, 'link-out'));
  symlinkSync('../secret', path.join(work, 'dir-out'));
  symlinkSync('chain2', path.join(work, 'chain1'));
  symlinkSync('../secret', path.join(work, 'chain2'));
  symlinkSync('../secret/new.txt', path.join(work, 'dangling'));
  symlinkSync('loop2', path.join(work, 'loop1'));
  symlinkSync('loop1', path.join(work, 'loop2'));
  symlinkSync('a.txt', path.join(work, 'link-in'));
  return {
    root,
    work,
    secret,
    ctx: (overrides = {}) => ({
      workdir: work,
      readPolicy: NO_READ_PATHS,
      permissions: { tools: {} },
      safeCommands: [],
      unattended: true,
      attempt: 1,
      home: secret,
      ...overrides,
    }),
    outsideSnapshot: () => snapshot(root, work),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
