/**
 * Blobs as files under a directory: `<dir>/ab/cdef…` for hash `abcdef…`.
 * Writes go to a temporary file and are renamed into place, so a reader
 * never sees half a blob and concurrent writers of the same text agree.
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Keyring } from '../codec/keys.js';
import { LevError } from '../errors.js';
import type { BlobRef } from '../shapes/content.js';
import { type BlobStore, blobRef, hashText, NAME_KEY } from './blob-store.js';
import { openBody, sealBody } from './sealing.js';

const HASH = /^[0-9a-f]{64}$/;

/** Writes the file, creating its folder only when it is missing (once per shard, not on every write). */
async function writeNew(file: string, body: Buffer): Promise<void> {
  try {
    await writeFile(file, body);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, body);
  }
}

export class LocalBlobStore implements BlobStore {
  constructor(
    readonly dir: string,
    /** With keys, bodies are written sealed (`sealing.ts`). */
    private readonly keys?: Keyring,
  ) {}

  private pathOf(hash: string): string {
    if (!HASH.test(hash)) {
      throw new LevError(
        'blob-bad-hash',
        `\`${hash}\` is not a blob hash (64 lowercase hex digits); pass the hash from a blob reference.`,
      );
    }
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  async put(text: string): Promise<BlobRef> {
    const ref = blobRef(text);
    const file = this.pathOf(ref.hash);
    if (await this.exists(file)) return ref;
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeNew(tmp, sealBody(this.keys, ref.hash, text));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return ref;
  }

  async get(hash: string): Promise<string> {
    const file = this.pathOf(hash);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      throw new LevError(
        'blob-missing',
        `Blob ${hash} is not in the store at ${this.dir}; the store was moved or pruned, so point the run at the right blob directory.`,
      );
    }
    const text = openBody(this.keys, hash, body);
    if (hashText(text) !== hash) {
      throw new LevError(
        'blob-corrupt',
        `Blob ${hash} in ${this.dir} does not match its hash; delete the file ${file} so it can be stored again.`,
      );
    }
    return text;
  }

  async has(hash: string): Promise<boolean> {
    return HASH.test(hash) && this.exists(this.pathOf(hash));
  }

  /** A name is a small file under `names/`, holding the hash; written whole by a rename as blobs are. */
  async name(key: string, hash: string): Promise<void> {
    const file = this.namePath(key);
    this.pathOf(hash);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeNew(tmp, Buffer.from(hash, 'utf8'));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async named(key: string): Promise<string | undefined> {
    try {
      const hash = (await readFile(this.namePath(key), 'utf8')).trim();
      return HASH.test(hash) ? hash : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  private namePath(key: string): string {
    if (!NAME_KEY.test(key))
      throw new LevError(
        'blob-bad-hash',
        `\`${key}\` is not a blob name (64 lowercase hex digits); name blobs by a hash.`,
      );
    return path.join(this.dir, 'names', key.slice(0, 2), key.slice(2));
  }

  private async exists(file: string): Promise<boolean> {
    try {
      await access(file);
      return true;
    } catch {
      return false;
    }
  }
}
