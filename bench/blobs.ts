/**
 * `npm run bench -- blobs [--pg URL]`: put and get throughput and p95
 * latency of the local folder store and the Postgres store, for 2 KB,
 * 100 KB and 2 MB blobs, from one process: one call at a time, and 16 at
 * once (a worker's default activity slots, which is also its pool size).
 * Postgres is LEVIATH_TEST_PG / --pg, else a throwaway server from Debian's
 * packages as the tests use.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlobStore, hashText, LocalBlobStore, PostgresBlobStore } from '../src/blobs/index.js';
import { DEFAULT_ACTIVITY_SLOTS } from '../src/runtime/node/run-store.js';
import { startTestPg } from '../test/blobs/pg-server.js';

const SIZES = [
  { label: '2 KB', bytes: 2 * 1024, count: 2000 },
  { label: '100 KB', bytes: 100 * 1024, count: 400 },
  { label: '2 MB', bytes: 2 * 1024 * 1024, count: 40 },
];

function texts(bytes: number, count: number): string[] {
  // base64 is one byte per character, so the text is exactly `bytes` long in UTF-8.
  return Array.from({ length: count }, () =>
    randomBytes(Math.ceil((bytes * 3) / 4))
      .toString('base64')
      .slice(0, bytes),
  );
}

function p95(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
}

/** Runs `op` over every item with `concurrency` in flight; per-call latencies and the wall time. */
async function timed<T>(
  items: T[],
  concurrency: number,
  op: (item: T) => Promise<unknown>,
): Promise<{ wallMs: number; ms: number[] }> {
  const ms: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < items.length; i = next++) {
        const t = performance.now();
        await op(items[i] as T);
        ms.push(performance.now() - t);
      }
    }),
  );
  return { wallMs: performance.now() - start, ms };
}

interface Row {
  store: string;
  size: string;
  concurrency: number;
  op: 'put' | 'get';
  opsPerSec: number;
  mbPerSec: number;
  p95Ms: number;
}

async function measure(name: string, store: BlobStore, concurrency: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of SIZES) {
    const data = texts(size.bytes, size.count);
    const put = await timed(data, concurrency, (t) => store.put(t));
    const get = await timed(data.map(hashText), concurrency, (h) => store.get(h));
    for (const [op, r] of [
      ['put', put],
      ['get', get],
    ] as const)
      rows.push({
        store: name,
        size: size.label,
        concurrency,
        op,
        opsPerSec: (size.count / r.wallMs) * 1000,
        mbPerSec: (size.count * size.bytes) / 1024 / 1024 / (r.wallMs / 1000),
        p95Ms: p95(r.ms),
      });
  }
  return rows;
}

export default async function run(args: string[]): Promise<void> {
  const flag = args.indexOf('--pg');
  const given = flag >= 0 ? args[flag + 1] : undefined;
  if (given) process.env.LEVIATH_TEST_PG = given;
  const db = await startTestPg();
  const dir = mkdtempSync(join(tmpdir(), 'lev-bench-blobs-'));
  const rows: Row[] = [];
  try {
    for (const concurrency of [1, DEFAULT_ACTIVITY_SLOTS]) {
      rows.push(...(await measure('local', new LocalBlobStore(join(dir, `c${concurrency}`)), concurrency)));
      const pg = new PostgresBlobStore(db.url, { poolSize: DEFAULT_ACTIVITY_SLOTS });
      try {
        rows.push(...(await measure('postgres', pg, concurrency)));
      } finally {
        await pg.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.stop();
  }
  process.stdout.write('| store | blob | in flight | op | ops/s | MB/s | p95 ms |\n|---|---|---|---|---|---|---|\n');
  for (const r of rows)
    process.stdout.write(
      `| ${r.store} | ${r.size} | ${r.concurrency} | ${r.op} | ${r.opsPerSec.toFixed(0)} | ${r.mbPerSec.toFixed(1)} | ${r.p95Ms.toFixed(2)} |\n`,
    );
}
