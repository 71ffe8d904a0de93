import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalBlobStore, PostgresBlobStore, parseBlobSpec } from '../../src/blobs/index.js';
import type { LevError } from '../../src/errors.js';
import { defaultRuntimeConfig, RunStore } from '../../src/runtime/node/run-store.js';

function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'lev-cfg-')), 'config.toml');
  writeFileSync(file, text);
  return file;
}

describe('choosing the blob store', () => {
  it('is the local folder unless LEVIATH_BLOBS or [runtime] blobs names a postgres:// store', async () => {
    const none = configFile('');
    const local = new RunStore(defaultRuntimeConfig({ LEVIATH_CONFIG: none, LEVIATH_BLOB_DIR: '/srv/blobs' }));
    expect(local.blobs.inner).toBeInstanceOf(LocalBlobStore);
    expect((local.blobs.inner as LocalBlobStore).dir).toBe('/srv/blobs');

    const fromConfig = configFile('[runtime]\nblobs = "postgres://lev@db:5432/leviath_blobs"\n');
    const configured = new RunStore(defaultRuntimeConfig({ LEVIATH_CONFIG: fromConfig, LEVIATH_ACTIVITY_SLOTS: '5' }));
    expect(configured.blobs.inner).toBeInstanceOf(PostgresBlobStore);
    expect((configured.blobs.inner as PostgresBlobStore).pool.options.max).toBe(5);
    await (configured.blobs.inner as PostgresBlobStore).close();

    // The environment wins over the config file.
    const overridden = defaultRuntimeConfig({ LEVIATH_CONFIG: fromConfig, LEVIATH_BLOBS: 'local' });
    expect(new RunStore(overridden).blobs.inner).toBeInstanceOf(LocalBlobStore);
  });

  it('refuses a store it does not know with a coded error', () => {
    expect(() => parseBlobSpec('s3://bucket/blobs', '/tmp')).toThrow(
      expect.objectContaining({ code: 'blobs-bad-store' }) as LevError,
    );
  });
});
