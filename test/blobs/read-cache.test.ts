import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { ReadCachedBlobStore } from '../../src/blobs/read-cache.js';
import type { LevError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lev-blob-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the worker read cache over a blob store', () => {
  it('answers a text it wrote or read from memory, and still writes every put to the store', async () => {
    const inner = new LocalBlobStore(path.join(dir, 'blobs'));
    const cached = new ReadCachedBlobStore(inner);
    const ref = await cached.put('the region entry');
    // Another process prunes the store; the cached text is still the text of that hash.
    rmSync(path.join(dir, 'blobs'), { recursive: true });
    expect(await cached.get(ref.hash)).toBe('the region entry');
    expect(await cached.has(ref.hash)).toBe(false);
    // A put after the prune writes the blob again, so other workers can read it.
    await cached.put('the region entry');
    expect(await inner.get(ref.hash)).toBe('the region entry');
  });

  it('forgets the least recently used texts past its size, and reports a missing blob as the store does', async () => {
    const inner = new LocalBlobStore(path.join(dir, 'blobs'));
    // Room for two 100-character texts (200 bytes each as UTF-16).
    const cached = new ReadCachedBlobStore(inner, 400);
    const a = await cached.put('a'.repeat(100));
    const b = await cached.put('b'.repeat(100));
    await cached.get(a.hash);
    const c = await cached.put('c'.repeat(100));
    rmSync(path.join(dir, 'blobs'), { recursive: true });
    expect(await cached.get(a.hash)).toBe('a'.repeat(100));
    expect(await cached.get(c.hash)).toBe('c'.repeat(100));
    await expect(cached.get(b.hash)).rejects.toMatchObject({ code: 'blob-missing' } satisfies Partial<LevError>);
  });
});
