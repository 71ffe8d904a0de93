/**
 * The suite's tiers (CONTRIBUTING.md#tiers), measured with `npm test` on a
 * quiet two-core machine (docs/benchmarks.md#the-test-suite); a file or test
 * that gets faster leaves its list.
 */

/**
 * Integration files of 10 s or more, left out of `npm run test:fast` and run by `npm test` like
 * every other, slowest first, with what takes the time.
 */
export const SLOW_FILES: string[] = [
  // `lev` processes: Ctrl-C, detaching, the embedded server, attaching after a SIGKILL.
  'test/integration/operator-cli.test.ts',
  // Three benches, each with its own dev server and worker processes.
  'test/integration/bench-smoke.test.ts',
  // Runs and visits that go on as new every few turns.
  'test/integration/run-continue.test.ts',
  // Seventeen runs steered through every operator update.
  'test/integration/operators.test.ts',
  // The Temporal server built from source on PostgreSQL, stopped and started again, a worker killed.
  'test/integration/real-server.test.ts',
  // Fan-outs of up to 25 items.
  'test/integration/fan-out.test.ts',
  // PostgreSQL and five `lev worker` processes.
  'test/integration/cluster.test.ts',
  // Worker processes killed and replaced mid-turn.
  'test/integration/crash-resume.test.ts',
  'test/integration/fan-out-crash.test.ts',
  'test/integration/mcp-worker-kill.test.ts',
  // Chromium.
  'test/integration/web-ui.test.ts',
  'test/integration/encrypted-payloads.test.ts',
  // Outages on the dev server and on the time-skipping server, which starts a JVM.
  'test/integration/provider-outage.test.ts',
  // Whole agents blocked and nudged by their gates.
  'test/integration/gates.test.ts',
  // 60 turns with 100 KB tool results, going on as new.
  'test/integration/long-run.test.ts',
  // Twenty runs through a 429 storm.
  'test/integration/provider-flow.test.ts',
  // Webhook deliveries retried on the server's backoff.
  'test/integration/notify.test.ts',
  // `lev` processes receiving signals, two `lev server`s.
  'test/integration/signals.test.ts',
  // A real terminal.
  'test/integration/attended-terminal.test.ts',
  // `lev worker --tools` processes.
  'test/integration/tool-workers.test.ts',
  // Versioned workers side by side.
  'test/integration/safe-deploys.test.ts',
  // Whole agents stopped by their limits.
  'test/integration/guardrails.test.ts',
  // Interaction points, one waiting out a 2 s ask_timeout.
  'test/integration/interaction-points.test.ts',
  // Provider failures retried on the activity's 1 s and 2 s backoff.
  'test/integration/provider-faults.test.ts',
  // Forks of runs that went on as new.
  'test/integration/fork.test.ts',
  // Seeds of every kind, a worker taken away mid-run.
  'test/integration/seeds.test.ts',
  // Every message in seven wrong shapes, megabyte ones included, to a run, its visit and a sub-agent's two.
  'test/integration/bad-messages.test.ts',
  // A wedged workflow's task retried on the server's backoff until lev show and lev cancel see it.
  'test/integration/wedged-runs.test.ts',
];

/** Tests allowed over 30 s, as `file › full name`, with why; `slow-tests-reporter.ts` names any other. */
export const LONG_TESTS: string[] = [];

/** A test longer than this is named at the end of a run unless `LONG_TESTS` lists it. */
export const LONG_TEST_MS = 30_000;
