/**
 * How long `lev validate` spends checking a blueprint (reading, parsing,
 * schema checks, lints and budget resolution), without process start-up;
 * `npm run bench -- validate start` instead runs the whole command 10
 * times, process start included, as a person at a terminal waits for it.
 * Run: node --import tsx bench/validate.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadBlueprint } from '../src/blueprint/load.js';
import { resolveStageBudgets } from '../src/blueprint/stage-layouts.js';

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

const START_RUNS = 10;
const TIME = '/usr/bin/time';

/**
 * Wall time and CPU (user + system, from GNU time when it is installed: the steadier figure
 * on a loaded machine) of `node bin/lev.mjs validate blueprints/demo/agent.toml`.
 */
function startTimes(): void {
  const lev = new URL('../bin/lev.mjs', import.meta.url).pathname;
  const args = [lev, 'validate', 'blueprints/demo/agent.toml'];
  const withTime = existsSync(TIME);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < START_RUNS; i++) {
    const started = performance.now();
    const out = withTime
      ? spawnSync(TIME, ['-f', 'cpu %U %S', process.execPath, ...args], { encoding: 'utf8' })
      : spawnSync(process.execPath, args, { encoding: 'utf8' });
    wall.push(performance.now() - started);
    if (out.status !== 0) throw new Error(`lev validate failed:\n${out.stdout}${out.stderr}`);
    const m = /cpu ([\d.]+) ([\d.]+)/.exec(out.stderr);
    if (m) cpu.push((Number(m[1]) + Number(m[2])) * 1000);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  console.log(
    `lev validate blueprints/demo/agent.toml, ${START_RUNS} runs: median wall ${median(wall).toFixed(0)} ms, ` +
      `min ${Math.min(...wall).toFixed(0)} ms` +
      (cpu.length > 0 ? `; median CPU ${median(cpu).toFixed(0)} ms, min ${Math.min(...cpu).toFixed(0)} ms` : ''),
  );
}

/** Prints load-and-validate times of the example blueprints, or with `start` the whole command's. */
export default function run(args: string[] = []): void {
  if (args[0] === 'start') {
    startTimes();
    return;
  }
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
