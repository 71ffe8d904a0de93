/**
 * A worker's recently read and written blob texts, in memory. Blobs are
 * content-addressed and never change, so a text kept under its hash is
 * always the right answer: every inference renders the region set again,
 * and without this each stored entry was read from the store and its hash
 * checked on every turn (`npm run bench -- burst`). Writes still go to the
 * store every time (a pruned blob is written again; Postgres records which
 * run wrote it); only reads are answered from memory.
 */
import type { BlobRef } from '../shapes/content.js';
import type { BlobStore } from './blob-store.js';

/** What one worker keeps by default: a few dozen agents' recent turns of long text. */
export const READ_CACHE_BYTES = 16 * 1024 * 1024;

export class ReadCachedBlobStore implements BlobStore {
  /** Texts by hash, least recently used first. */
  private readonly texts = new Map<string, string>();
  private bytes = 0;

  constructor(
    readonly inner: BlobStore,
    private readonly limitBytes = READ_CACHE_BYTES,
  ) {}

  async put(text: string): Promise<BlobRef> {
    const ref = await this.inner.put(text);
    this.keep(ref.hash, text);
    return ref;
  }

  async get(hash: string): Promise<string> {
    const text = this.texts.get(hash);
    if (text !== undefined) {
      this.keep(hash, text);
      return text;
    }
    const read = await this.inner.get(hash);
    this.keep(hash, read);
    return read;
  }

  has(hash: string): Promise<boolean> {
    return this.inner.has(hash);
  }

  /** Names change, so they are never cached. */
  name(key: string, hash: string): Promise<void> {
    return this.inner.name(key, hash);
  }

  named(key: string): Promise<string | undefined> {
    return this.inner.named(key);
  }

  private keep(hash: string, text: string): void {
    // Size in UTF-16 code units is close enough for a bound, and costs nothing to read.
    const size = text.length * 2;
    if (size > this.limitBytes) return;
    if (this.texts.delete(hash)) this.bytes -= size;
    this.texts.set(hash, text);
    this.bytes += size;
    for (const [oldest, old] of this.texts) {
      if (this.bytes <= this.limitBytes) break;
      this.texts.delete(oldest);
      this.bytes -= old.length * 2;
    }
  }
}
