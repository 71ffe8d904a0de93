/** `lev blobs gc` and `lev worker` refusing what they cannot do, before they connect to anything. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lev as levInProcess } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-cli-'));

function lev(args: string[], env: Record<string, string> = {}) {
  return levInProcess(args, {
    env: { LEVIATH_BLOBS: undefined, LEVIATH_CONFIG: join(scratch, 'no-config.toml'), LEVIATH_HOME: scratch, ...env },
  });
}

describe('lev blobs gc', () => {
  it('refuses the local folder store, which keeps no run references', async () => {
    const r = await lev(['blobs', 'gc', '--older-than', '30d']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error \[blobs-gc-needs-postgres\] The blob store is the local folder .*blobs/);
  });

  it('refuses an age it cannot read and a store it does not know', async () => {
    expect((await lev(['blobs', 'gc', '--older-than', '30 days'])).stderr).toMatch(
      /^error \[bad-input\] --older-than takes/,
    );
    expect((await lev(['blobs', 'gc'], { LEVIATH_BLOBS: 'redis://cache' })).stderr).toMatch(
      /^error \[blobs-bad-store\]/,
    );
  });
});

describe('lev worker flags', () => {
  it('needs --workdir with --tools, and --tools with --workdir', async () => {
    expect((await lev(['worker', '--tools'])).stderr).toMatch(
      /^error \[bad-input\] --tools serves the tool calls of one workdir/,
    );
    expect((await lev(['worker', '--workdir', scratch])).stderr).toMatch(/^error \[bad-input\] --workdir only applies/);
  });

  it('refuses to serve a workdir that is not on this machine', async () => {
    const r = await lev(['worker', '--tools', '--workdir', join(scratch, 'elsewhere')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error \[workdir-missing\] The workdir .*elsewhere is not a directory on this machine/);
  });
});
