/**
 * `lev run` refuses before it starts a server or a worker: a working
 * directory that is missing or a file, and a blueprint that runs commands
 * where the sandbox cannot be built.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lev } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-run-refusals-'));

function levRun(args: string[], env: Record<string, string> = {}) {
  return lev(['run', ...args, '--address', '127.0.0.1:1'], {
    env: { LEVIATH_CONFIG: join(scratch, 'no-config.toml'), ...env },
  });
}

describe('lev run refuses before starting', () => {
  it('a --workdir that does not exist, or is a file', async () => {
    const missing = await levRun(['blueprints/demo', '--task', 'x', '--workdir', join(scratch, 'missing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[workdir-missing]');
    const file = join(scratch, 'file.txt');
    writeFileSync(file, 'x');
    const notDir = await levRun(['blueprints/demo', '--task', 'x', '--workdir', file]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toContain('[workdir-not-a-directory]');
  });

  it('a --title that is empty, spans lines or is over 200 bytes (docs/reference/cli.md#run-titles)', async () => {
    for (const title of ['  ', 'one\ntwo', 'é'.repeat(101)]) {
      const r = await levRun(['blueprints/demo', '--task', 'x', '--workdir', scratch, '--title', title]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('[title-invalid]');
    }
  });

  it('a blueprint that runs commands, when bubblewrap cannot be found', async () => {
    const bp = join(scratch, 'shell.toml');
    writeFileSync(bp, '[stages.main]\navailable_tools = ["shell"]\n');
    // bwrap is not on this PATH.
    const r = await levRun([bp, '--workdir', scratch], { PATH: scratch });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[sandbox-unavailable]');
    expect(r.stderr).toContain('[sandbox] kind = "none"');
  });
});
