import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fullText, INLINE_LIMIT_BYTES, LocalBlobStore, toContent } from '../../src/blobs/index.js';
import { LevError } from '../../src/errors.js';

let dir: string;
let store: LocalBlobStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lev-blobs-'));
  store = new LocalBlobStore(path.join(dir, 'blobs'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LocalBlobStore', () => {
  it('round-trips text and shards by hash', async () => {
    const ref = await store.put('hello world');
    expect(ref).toEqual({
      hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      bytes: 11,
      preview: 'hello world',
    });
    expect(await store.get(ref.hash)).toBe('hello world');
    expect(await store.has(ref.hash)).toBe(true);
    expect(readdirSync(path.join(dir, 'blobs', 'b9'))).toEqual([ref.hash.slice(2)]);
  });

  it('names a blob so another store on the same folder finds it, the latest name winning', async () => {
    const key = 'f'.repeat(64);
    const first = await store.put('an answer');
    const second = await store.put('another answer');
    expect(await store.named(key)).toBeUndefined();
    await store.name(key, first.hash);
    const other = new LocalBlobStore(path.join(dir, 'blobs'));
    expect(await other.named(key)).toBe(first.hash);
    await other.name(key, second.hash);
    expect(await store.named(key)).toBe(second.hash);
    await expect(store.name('../escape', first.hash)).rejects.toSatisfy(
      (e) => e instanceof LevError && e.code === 'blob-bad-hash',
    );
  });

  it('round-trips any text, with byte size and a 200-character preview', () =>
    fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 400 }), async (text) => {
        const ref = await store.put(text);
        expect(await store.get(ref.hash)).toBe(text);
        expect(ref.bytes).toBe(Buffer.byteLength(text));
        expect(text.startsWith(ref.preview)).toBe(true);
        expect([...ref.preview].length).toBe(Math.min(200, [...text].length));
      }),
      { numRuns: 60 },
    ));

  it('putting the same text again is a no-op that returns the same reference', async () => {
    const a = await store.put('same');
    const shard = path.join(dir, 'blobs', a.hash.slice(0, 2));
    const before = readdirSync(shard);
    const [b, c] = await Promise.all([store.put('same'), store.put('same')]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(readdirSync(shard)).toEqual(before);
  });

  it('a missing hash throws blob-missing; a malformed one blob-bad-hash', async () => {
    const missing = 'a'.repeat(64);
    expect(await store.has(missing)).toBe(false);
    await expect(store.get(missing)).rejects.toMatchObject({ code: 'blob-missing' });
    await expect(store.get('../etc/passwd')).rejects.toBeInstanceOf(LevError);
    await expect(store.get('../etc/passwd')).rejects.toMatchObject({ code: 'blob-bad-hash' });
    expect(await store.has('../etc/passwd')).toBe(false);
  });

  it('a blob whose file was altered is reported, not returned', async () => {
    const ref = await store.put('original');
    writeFileSync(path.join(dir, 'blobs', ref.hash.slice(0, 2), ref.hash.slice(2)), 'tampered');
    await expect(store.get(ref.hash)).rejects.toMatchObject({ code: 'blob-corrupt' });
  });
});

describe('toContent', () => {
  it('keeps text up to the inline limit inline and stores larger text', async () => {
    const small = 'x'.repeat(INLINE_LIMIT_BYTES);
    expect(await toContent(store, small)).toBe(small);
    const large = 'é'.repeat(INLINE_LIMIT_BYTES / 2 + 1);
    const content = await toContent(store, large);
    expect(content).toMatchObject({ bytes: INLINE_LIMIT_BYTES + 2 });
    expect(await fullText(store, content)).toBe(large);
    expect(await fullText(store, small)).toBe(small);
  });
});
