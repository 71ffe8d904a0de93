/**
 * The encryption keys of a deployment (docs/reference/operating.md#encrypted-payloads):
 * a key file named by `LEVIATH_CODEC_KEY_FILE`, else `[runtime] codec_key_file`
 * in the user config. One key a line, `<key-id> <base64 of 32 random bytes>`;
 * `#` starts a comment. The first key encrypts; every key decrypts, so a key
 * rotates by putting a new line on top and keeping the old ones for as long
 * as histories and blobs written with them are kept.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadUserConfig } from '../blueprint/user-config.js';
import { LevError } from '../errors.js';

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealed {
  keyId: string;
  /** IV, ciphertext and GCM tag, in that order. */
  bytes: Buffer;
}

export class Keyring {
  readonly keys: ReadonlyMap<string, Buffer>;
  /** The id of the key that encrypts. */
  readonly current: string;

  constructor(
    keys: ReadonlyArray<readonly [string, Buffer]>,
    /** Where the keys came from, for messages. */
    readonly source = 'the key file',
  ) {
    const first = keys[0];
    if (!first) throw new LevError('codec-key-bad', `${source} holds no key; add a line "<key-id> <base64 key>".`);
    this.current = first[0];
    this.keys = new Map(keys);
  }

  /** AES-256-GCM under the current key, with a fresh IV; `aad` binds the ciphertext to what it is for. */
  seal(plain: Uint8Array, aad?: Uint8Array): Sealed {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.current) as Buffer, iv);
    if (aad) cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return { keyId: this.current, bytes: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  open(sealed: Sealed, aad?: Uint8Array): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key)
      throw new LevError(
        'codec-unknown-key',
        `This was encrypted with the key "${sealed.keyId}", which ${this.source} does not hold; put that key back in the file (below the current one) to read it.`,
      );
    const { bytes } = sealed;
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new LevError(
        'codec-key-bad',
        `Decrypting with the key "${sealed.keyId}" of ${this.source} failed: the key under that id is not the one that encrypted, or the data was altered; restore the original key under that id.`,
      );
    }
  }
}

/** The keys of a key file's text. */
export function parseKeyFile(text: string, source: string): Keyring {
  const keys: Array<[string, Buffer]> = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [id, b64, ...rest] = line.split(/\s+/);
    const key = b64 ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
    if (!id || !KEY_ID.test(id) || rest.length > 0 || key.length !== 32 || seen.has(id))
      throw new LevError(
        'codec-key-bad',
        `Line ${i + 1} of ${source} is not "<key-id> <base64 of 32 bytes>" with a new id (letters, digits, ".", "_", "-"); make one with: echo "k$(date +%Y%m%d) $(openssl rand -base64 32)".`,
      );
    seen.add(id);
    keys.push([id, key]);
  }
  return new Keyring(keys, source);
}

/** The key file this process is configured with, if any. */
export function configuredKeyFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.LEVIATH_CODEC_KEY_FILE?.trim() || loadUserConfig(env).config.runtime.codecKeyFile;
  return file ? resolve(file) : undefined;
}

const loaded = new Map<string, Keyring>();

/** The configured keys (read once per file and process), or undefined when payloads are not encrypted. */
export function configuredKeyring(env: NodeJS.ProcessEnv = process.env): Keyring | undefined {
  const file = configuredKeyFile(env);
  if (!file) return undefined;
  let ring = loaded.get(file);
  if (!ring) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new LevError(
        'codec-key-unreadable',
        `The codec key file ${file} cannot be read (${(err as Error).message}); point LEVIATH_CODEC_KEY_FILE or [runtime] codec_key_file at a file this process can read.`,
      );
    }
    ring = parseKeyFile(text, file);
    loaded.set(file, ring);
  }
  return ring;
}
