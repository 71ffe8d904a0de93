import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectBlobs, PostgresBlobStore, withBlobRun } from '../../src/blobs/index.js';
import { withPgRetry } from '../../src/blobs/pg-retry.js';
import { parseKeyFile } from '../../src/codec/keys.js';
import { freePort } from '../../src/devserver/net.js';
import { LevError } from '../../src/errors.js';
import { startFlakyProxy } from './flaky-proxy.js';
import { startTestPg, type TestPg } from './pg-server.js';

let db: TestPg;
let store: PostgresBlobStore;
beforeAll(async () => {
  db = await startTestPg();
  store = new PostgresBlobStore(db.url, { poolSize: 4 });
}, 60_000);
afterAll(async () => {
  await store?.close();
  await db?.stop();
});

async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

function codeOf(err: unknown): string | undefined {
  return err instanceof LevError ? err.code : undefined;
}

describe('PostgresBlobStore', () => {
  it('keeps bodies encrypted when it has the codec key, and reads them back', async () => {
    const keys = parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys');
    const sealed = new PostgresBlobStore(db.url, { poolSize: 1, keys });
    try {
      const text = `payroll for ACME-7781 ${'.'.repeat(3000)}`;
      const ref = await sealed.put(text);
      const [row] = await sql<{ body: Buffer }>('SELECT body FROM leviath_blobs WHERE hash = $1', [ref.hash]);
      expect(row?.body.toString('latin1')).not.toContain('ACME-7781');
      expect(await sealed.get(ref.hash)).toBe(text);
      await expect(store.get(ref.hash)).rejects.toThrow(expect.objectContaining({ code: 'blob-encrypted' }));
    } finally {
      await sealed.close();
    }
  });

  it('round-trips any text with the reference the local store gives', () =>
    fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 3000 }), async (text) => {
        const ref = await store.put(text);
        expect(ref.bytes).toBe(Buffer.byteLength(text, 'utf8'));
        expect(await store.get(ref.hash)).toBe(text);
        expect(await store.has(ref.hash)).toBe(true);
      }),
      { numRuns: 30 },
    ));

  it('stores a text once however often and from however many stores it is put', async () => {
    const other = new PostgresBlobStore(db.url, { poolSize: 2 });
    const text = 'same text '.repeat(500);
    const refs = await Promise.all([store.put(text), other.put(text), store.put(text), other.put(text)]);
    await other.close();
    expect(new Set(refs.map((r) => r.hash)).size).toBe(1);
    const rows = await sql<{ n: string; bytes: number }>(
      'SELECT count(*) AS n, max(bytes) AS bytes FROM leviath_blobs WHERE hash = $1',
      [refs[0]?.hash],
    );
    expect(rows[0]).toEqual({ n: '1', bytes: 5000 });
  });

  it('creates its tables on first use, also when several stores start at once', async () => {
    const fresh = await startTestPg();
    const stores = Array.from({ length: 4 }, () => new PostgresBlobStore(fresh.url, { poolSize: 1 }));
    try {
      const refs = await Promise.all(stores.map((s, i) => s.put(`store ${i}`)));
      expect(await stores[0]?.get(refs[3]?.hash ?? '')).toBe('store 3');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await fresh.stop();
    }
  }, 60_000);

  it('says a blob is missing, refuses a bad hash, and notices a body that does not match its hash', async () => {
    const absent = 'a'.repeat(64);
    expect(await store.has(absent)).toBe(false);
    await expect(store.get(absent)).rejects.toSatisfy((e) => codeOf(e) === 'blob-missing');
    await expect(store.get('../etc/passwd')).rejects.toSatisfy((e) => codeOf(e) === 'blob-bad-hash');
    const ref = await store.put('original body');
    await sql('UPDATE leviath_blobs SET body = $2 WHERE hash = $1', [ref.hash, Buffer.from('tampered')]);
    await expect(store.get(ref.hash)).rejects.toSatisfy((e) => codeOf(e) === 'blob-corrupt');
  });

  it('names a blob for every store on the database, the latest name winning', async () => {
    const key = 'a'.repeat(64);
    const first = await store.put('a stored answer');
    const second = await store.put('the answer stored again');
    expect(await store.named(key)).toBeUndefined();
    await store.name(key, first.hash);
    const other = new PostgresBlobStore(db.url, { poolSize: 1 });
    try {
      expect(await other.named(key)).toBe(first.hash);
      await other.name(key, second.hash);
      expect(await store.named(key)).toBe(second.hash);
    } finally {
      await other.close();
    }
    await expect(store.name('not-a-hash', first.hash)).rejects.toSatisfy((e) => codeOf(e) === 'blob-bad-hash');
  });

  it('records which run stored a blob, once per run', async () => {
    const ref = await withBlobRun('run-a', () => store.put('shared by two runs'));
    await withBlobRun('run-a', () => store.put('shared by two runs'));
    await withBlobRun('run-b', () => store.put('shared by two runs'));
    const rows = await sql<{ run_id: string }>('SELECT run_id FROM leviath_blob_refs WHERE hash = $1 ORDER BY run_id', [
      ref.hash,
    ]);
    expect(rows.map((r) => r.run_id)).toEqual(['run-a', 'run-b']);
  });

  it('carries on through a database that drops every connection and comes back', async () => {
    const target = new URL(db.url);
    const proxy = await startFlakyProxy(target.hostname, Number(target.port || 5432));
    const via = new URL(db.url);
    via.hostname = '127.0.0.1';
    via.port = String(proxy.port);
    const store = new PostgresBlobStore(via.toString(), {
      poolSize: 4,
      retry: { attempts: 8, firstDelayMs: 50, maxDelayMs: 400 },
    });
    try {
      const before = await store.put('written before the outage');
      await proxy.cut();
      const during = Promise.all([store.put('written during the outage'), store.get(before.hash)]);
      await new Promise((r) => setTimeout(r, 300));
      await proxy.restore();
      const [ref, text] = await during;
      expect(text).toBe('written before the outage');
      expect(await store.get(ref.hash)).toBe('written during the outage');
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('reports a store that does not answer as unavailable (retried by Temporal), and bad credentials as a coded error', async () => {
    const port = await freePort();
    const down = new PostgresBlobStore(`postgres://leviath@127.0.0.1:${port}/nothing`, {
      retry: { attempts: 2, firstDelayMs: 10, maxDelayMs: 10 },
    });
    await expect(down.put('x')).rejects.toThrow(/^\[blob-store-unavailable\]/);
    await down.close();
    const wrongDb = new PostgresBlobStore(db.url.replace(/\/[^/]+$/, '/no_such_database'));
    await expect(wrongDb.put('x')).rejects.toSatisfy((e) => codeOf(e) === 'blob-store-refused');
    await wrongDb.close();
  });
});

describe('withPgRetry', () => {
  it('retries transient failures and gives up on others at once', async () => {
    let calls = 0;
    const result = await withPgRetry(
      'a test',
      async () => {
        calls++;
        if (calls < 3)
          throw Object.assign(new Error('terminating connection'), { code: calls === 1 ? '57P01' : '40001' });
        return 'ok';
      },
      { attempts: 5, firstDelayMs: 1, maxDelayMs: 2 },
    );
    expect({ result, calls }).toEqual({ result: 'ok', calls: 3 });
    let syntaxCalls = 0;
    await expect(
      withPgRetry('a test', async () => {
        syntaxCalls++;
        throw Object.assign(new Error('syntax error'), { code: '42601' });
      }),
    ).rejects.toThrow('syntax error');
    expect(syntaxCalls).toBe(1);
  });
});

describe('collectBlobs', () => {
  it('deletes old blobs of runs Temporal forgot and unreferenced old blobs, keeps the rest', async () => {
    const keptRun = await withBlobRun('gc-open', () => store.put('blob of an open run'));
    const sharedRef = await withBlobRun('gc-gone', () => store.put('blob of both runs'));
    await withBlobRun('gc-open', () => store.put('blob of both runs'));
    const goneRef = await withBlobRun('gc-gone', () => store.put('blob of a forgotten run'));
    const orphan = await store.put('blob nobody references');
    const young = await withBlobRun('gc-gone', () => store.put('young blob of a forgotten run'));
    await store.name('b'.repeat(64), goneRef.hash);
    await store.name('c'.repeat(64), keptRun.hash);
    await sql(`UPDATE leviath_blobs SET created_at = now() - interval '40 days' WHERE hash <> $1`, [young.hash]);
    await sql(`UPDATE leviath_blob_refs SET created_at = now() - interval '40 days'`);

    const asked: string[][] = [];
    const knownRuns = async (ids: string[]) => {
      asked.push([...ids].sort());
      return new Set(ids.filter((id) => id !== 'gc-gone'));
    };
    const dry = await collectBlobs(store, { olderThanMs: 30 * 86_400_000, knownRuns, dryRun: true });
    expect(dry.blobsDeleted).toBeGreaterThanOrEqual(2);
    expect(await store.has(goneRef.hash)).toBe(true);

    const report = await collectBlobs(store, { olderThanMs: 30 * 86_400_000, knownRuns });
    expect(asked.at(-1)).toContain('gc-gone');
    expect(report.runsForgotten).toBe(1);
    expect(await store.has(goneRef.hash)).toBe(false);
    expect(await store.has(orphan.hash)).toBe(false);
    expect(await store.has(keptRun.hash)).toBe(true);
    expect(await store.has(sharedRef.hash)).toBe(true);
    expect(await store.has(young.hash)).toBe(true);
    expect(report.bytesDeleted).toBeGreaterThanOrEqual(goneRef.bytes + orphan.bytes);
    // A name goes with its blob.
    expect(await store.named('b'.repeat(64))).toBeUndefined();
    expect(await store.named('c'.repeat(64))).toBe(keptRun.hash);
    // A forgotten run's blob stored again later is simply back.
    await withBlobRun('gc-new', () => store.put('blob of a forgotten run'));
    expect(await store.get(goneRef.hash)).toBe('blob of a forgotten run');
  });
});
