/**
 * Compares this engine with real Rhai on the conformance rows (see README.md here).
 *
 *   cargo build --release --manifest-path test/rhai/reference/Cargo.toml
 *   RHAI_DUMP=/tmp/rows.jsonl npx vitest run test/rhai
 *   node --import tsx test/rhai/reference/compare.ts /tmp/rows.jsonl
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Mine {
  ok: boolean;
  value?: unknown;
  error?: { message: string };
}
interface Theirs {
  ok: boolean;
  value?: unknown;
  error?: string;
}

const rowsFile = process.argv[2];
if (!rowsFile) {
  console.error('usage: compare.ts <rows.jsonl written with RHAI_DUMP>');
  process.exit(2);
}
const rows = readFileSync(rowsFile, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { src: string; mine: Mine });
const bin = join(import.meta.dirname, 'target/release/rhai-reference');
const run = spawnSync(bin, {
  input: `${rows.map((r) => JSON.stringify(r.src)).join('\n')}\n`,
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
if (run.status !== 0) {
  console.error(`could not run ${bin} (build it first): ${run.stderr || run.error}`);
  process.exit(2);
}
const theirs = run.stdout
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Theirs);

/** Numbers compare by value (JSON cannot tell 3 from 3.0). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a === undefined || a === null) return b === undefined || b === null;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (typeof a === 'object') {
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
    const ka = Object.keys(a as object).sort();
    const kb = Object.keys(b).sort();
    return same(ka, kb) && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

let differ = 0;
rows.forEach((r, i) => {
  const t = theirs[i]!;
  const agree = r.mine.ok === t.ok && (!t.ok || same(r.mine.value, t.value));
  if (agree) return;
  differ++;
  console.log(r.src);
  console.log(`  here: ${r.mine.ok ? JSON.stringify(r.mine.value) : `error: ${r.mine.error?.message}`}`);
  console.log(`  rhai: ${t.ok ? JSON.stringify(t.value) : `error: ${t.error}`}`);
});
console.log(`${rows.length} rows, ${differ} differ from Rhai (docs/rhai.md lists the deliberate differences)`);
