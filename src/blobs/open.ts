/**
 * Which blob store a process uses: `LEVIATH_BLOBS`, else `[runtime] blobs`
 * in the user config, else the local folder (`$LEVIATH_BLOB_DIR`, else
 * `blobs/` of the data folder, src/state/locations.ts). `local` names the folder explicitly; a
 * `postgres://` or `postgresql://` URL names a shared PostgreSQL store.
 */
import { configuredKeyring, type Keyring } from '../codec/keys.js';
import { LevError } from '../errors.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local.js';
import { PostgresBlobStore } from './postgres.js';

export type BlobSpec = { kind: 'local'; dir: string } | { kind: 'postgres'; url: string };

export function parseBlobSpec(value: string | undefined, localDir: string): BlobSpec {
  const v = value?.trim();
  if (!v || v === 'local') return { kind: 'local', dir: localDir };
  if (/^postgres(ql)?:\/\//.test(v)) return { kind: 'postgres', url: v };
  throw new LevError(
    'blobs-bad-store',
    `The blob store "${v}" is neither "local" nor a postgres:// URL; set LEVIATH_BLOBS or [runtime] blobs to one of those.`,
  );
}

/** The store; its bodies are sealed with `keys`, by default the process's codec keys (`LEVIATH_CODEC_KEY_FILE`). */
export function openBlobStore(
  spec: BlobSpec,
  poolSize?: number,
  keys: Keyring | undefined = configuredKeyring(),
): BlobStore {
  return spec.kind === 'local'
    ? new LocalBlobStore(spec.dir, keys)
    : new PostgresBlobStore(spec.url, { ...(poolSize !== undefined ? { poolSize } : {}), ...(keys ? { keys } : {}) });
}
