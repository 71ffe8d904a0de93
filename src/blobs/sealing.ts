/**
 * Blob bodies encrypted with the deployment's codec key
 * (docs/reference/operating.md#encrypted-payloads). A sealed body is
 * `LEVSEAL1`, the key id's length and the key id, then AES-256-GCM's IV,
 * ciphertext and tag; the blob's hash is the additional data, so a body
 * moved under another hash fails to open. Hashes stay those of the plain
 * text, so sealed and plain stores agree on every reference; a body written
 * before the key was set still reads.
 */
import type { Keyring } from '../codec/keys.js';
import { LevError } from '../errors.js';

const MAGIC = Buffer.from('LEVSEAL1', 'latin1');

export function isSealed(body: Buffer): boolean {
  return body.length > MAGIC.length && body.subarray(0, MAGIC.length).equals(MAGIC);
}

/** The body to store for `text`: sealed when there are keys, the UTF-8 text otherwise. */
export function sealBody(keys: Keyring | undefined, hash: string, text: string): Buffer {
  const plain = Buffer.from(text, 'utf8');
  if (!keys) return plain;
  const { keyId, bytes } = keys.seal(plain, Buffer.from(hash, 'latin1'));
  const id = Buffer.from(keyId, 'latin1');
  return Buffer.concat([MAGIC, Buffer.from([id.length]), id, bytes]);
}

/** The text of a stored body, opened with the keys when it is sealed. */
export function openBody(keys: Keyring | undefined, hash: string, body: Buffer): string {
  if (!isSealed(body)) return body.toString('utf8');
  if (!keys)
    throw new LevError(
      'blob-encrypted',
      `Blob ${hash} is encrypted and this process has no codec key; set LEVIATH_CODEC_KEY_FILE (or [runtime] codec_key_file) to the deployment's key file.`,
    );
  const idLength = body[MAGIC.length] as number;
  const start = MAGIC.length + 1;
  const keyId = body.subarray(start, start + idLength).toString('latin1');
  return keys.open({ keyId, bytes: body.subarray(start + idLength) }, Buffer.from(hash, 'latin1')).toString('utf8');
}
