/**
 * `lev run` refuses before it starts a server or a worker: a working
 * directory that is missing or a file, and a blueprint that runs commands
 * where the sandbox cannot be built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'lev-run-refusals-'));

function levRun(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/lev.mjs', 'run', ...args, '--address', '127.0.0.1:1'], {
    encoding: 'utf8',
    env: { ...process.env, LEVIATH_CONFIG: join(scratch, 'no-config.toml'), ...env },
  });
  return { code: r.status, stderr: r.stderr };
}

describe('lev run refuses before starting', () => {
  it('a --workdir that does not exist, or is a file', () => {
    const missing = levRun(['blueprints/demo', '--task', 'x', '--workdir', join(scratch, 'missing')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[workdir-missing]');
    const file = join(scratch, 'file.txt');
    writeFileSync(file, 'x');
    const notDir = levRun(['blueprints/demo', '--task', 'x', '--workdir', file]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toContain('[workdir-not-a-directory]');
  }, 60_000);

  it('a blueprint that runs commands, when bubblewrap cannot be found', () => {
    const bp = join(scratch, 'shell.toml');
    writeFileSync(bp, '[stages.main]\navailable_tools = ["shell"]\n');
    // node is found by its absolute path; bwrap is not on this PATH.
    const r = levRun([bp, '--workdir', scratch], { PATH: scratch });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[sandbox-unavailable]');
    expect(r.stderr).toContain('[sandbox] kind = "none"');
  }, 60_000);
});
