import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashText } from '../../src/blobs/blob-store.js';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { parseKeyFile } from '../../src/codec/keys.js';
import type { LevError } from '../../src/errors.js';

const keys = parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys');
const SECRET = `the customer's card ends in 4242. ${'x'.repeat(3000)}`;

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('blob bodies sealed with the codec key', () => {
  it('are written encrypted and read back as the text, under the hash of the text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-sealed-'));
    const store = new LocalBlobStore(dir, keys);
    const ref = await store.put(SECRET);
    expect(ref.hash).toBe(hashText(SECRET));
    const [only] = files(dir);
    expect(readFileSync(only!).toString('latin1')).not.toContain('4242');
    expect(await store.get(ref.hash)).toBe(SECRET);
  });

  it('cannot be read without the key, while plain bodies written before the key still read with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-sealed-'));
    const sealed = await new LocalBlobStore(dir, keys).put(SECRET);
    await expect(new LocalBlobStore(dir).get(sealed.hash)).rejects.toThrow(
      expect.objectContaining({ code: 'blob-encrypted' }) as LevError,
    );
    const plain = await new LocalBlobStore(dir).put('written before the key was set');
    expect(await new LocalBlobStore(dir, keys).get(plain.hash)).toBe('written before the key was set');
  });

  it('fail to open when a sealed body is moved under another hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-sealed-'));
    const store = new LocalBlobStore(dir, keys);
    const a = await store.put('first text');
    const b = await store.put('second text');
    const fileOf = (hash: string) => join(dir, hash.slice(0, 2), hash.slice(2));
    writeFileSync(`${fileOf(a.hash)}.moved`, readFileSync(fileOf(b.hash)));
    renameSync(`${fileOf(a.hash)}.moved`, fileOf(a.hash));
    await expect(new LocalBlobStore(dir, keys).get(a.hash)).rejects.toThrow(
      expect.objectContaining({ code: 'codec-key-bad' }) as LevError,
    );
  });
});
