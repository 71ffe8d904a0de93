#!/usr/bin/env node
// The flake report: runs the whole suite several times in a row (three by
// default) and lists every test that failed in any run, with the load
// average and the wall time of each run (CONTRIBUTING.md#flakes). A test
// that failed once and passed in another run is a flake to fix, never to
// retry. Plain JavaScript, like the other scripts.
//
//   npm run test:flakes [-- --runs 3] [-- vitest filters ...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const runsAt = argv.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 3;
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of runs, 1 or more');
  const rest = runsAt >= 0 ? [...argv.slice(0, runsAt), ...argv.slice(runsAt + 2)] : argv;
  return { runs, filters: rest };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** One run of vitest: the failed tests (file › title) and whether every test passed. */
function runOnce(i, filters, dir) {
  const report = join(dir, `run-${i}.json`);
  const before = load();
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...filters,
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  let results;
  try {
    results = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    return {
      failed: [`(run ${i}: vitest wrote no report, exit status ${run.status})`],
      seconds,
      before,
      after: load(),
    };
  }
  const failed = [];
  for (const file of results.testResults ?? []) {
    const name = relative(ROOT, file.name);
    const tests = file.assertionResults ?? [];
    for (const t of tests) if (t.status === 'failed') failed.push(`${name} › ${t.fullName ?? t.title}`);
    // A file that failed outside its tests (a hook, an import) has no failed test to name.
    if (file.status === 'failed' && !tests.some((t) => t.status === 'failed'))
      failed.push(`${name} (outside a test: ${file.message ?? 'failed'})`);
  }
  return { failed, seconds, before, after: load(), total: results.numTotalTests };
}

function main() {
  const { runs, filters } = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'leviath-flakes-'));
  const all = [];
  for (let i = 1; i <= runs; i++) {
    process.stderr.write(`flakes: run ${i} of ${runs} (load average ${load()})\n`);
    all.push(runOnce(i, filters, dir));
  }
  const counts = new Map();
  for (const r of all) for (const name of r.failed) counts.set(name, (counts.get(name) ?? 0) + 1);
  const lines = ['', 'run  wall    tests  failed  load average before → after'];
  for (const [i, r] of all.entries())
    lines.push(
      `${String(i + 1).padEnd(4)} ${`${r.seconds} s`.padEnd(7)} ${String(r.total ?? '?').padEnd(6)} ${String(r.failed.length).padEnd(7)} ${r.before} → ${r.after}`,
    );
  lines.push('');
  if (counts.size === 0) lines.push(`No test failed in ${runs} runs.`);
  else {
    lines.push(`Tests that failed (in how many of ${runs} runs; fewer than all is a flake):`);
    for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`  ${n}/${runs}  ${name}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = counts.size === 0 ? 0 : 1;
}

main();
