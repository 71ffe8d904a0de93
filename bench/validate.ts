/**
 * How long `lev validate` spends checking a blueprint (reading, parsing,
 * schema checks, lints and budget resolution), without process start-up.
 * Run: node --import tsx bench/validate.ts
 */
import { pathToFileURL } from 'node:url';
import { loadBlueprint } from '../src/blueprint/load.js';
import { resolveStageBudgets } from '../src/blueprint/resolve.js';

const RUNS = 500;
const targets = ['blueprints/coder', 'blueprints/researcher', 'blueprints/demo'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function once(path: string): number {
  const started = performance.now();
  const result = loadBlueprint(path);
  if (!result.blueprint)
    throw new Error(`${path} does not validate: ${result.diagnostics.map((d) => d.code).join(', ')}`);
  resolveStageBudgets(result.blueprint);
  return performance.now() - started;
}

/** Prints load-and-validate times of the example blueprints. */
export default function run(): void {
  const rows: string[][] = [['blueprint', 'first (ms)', 'median (ms)', 'p95 (ms)', 'max (ms)', 'runs']];
  for (const target of targets) {
    const first = once(target);
    const times = Array.from({ length: RUNS }, () => once(target)).sort((a, b) => a - b);
    rows.push([
      target,
      first.toFixed(2),
      percentile(times, 50).toFixed(2),
      percentile(times, 95).toFixed(2),
      (times[times.length - 1] ?? 0).toFixed(2),
      String(RUNS),
    ]);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const row of rows)
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '),
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) run();
