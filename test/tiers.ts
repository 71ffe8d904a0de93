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
  // npm pack (its prepack builds dist/) and an offline npm ci of the tarball, then the demo and lev doctor from there.
  'test/integration/installed-package.test.ts',
  // `lev` processes: Ctrl-C, detaching, the embedded server, attaching after a SIGKILL.
  'test/integration/operator-cli.test.ts',
  // Programs that import the package, each a process with a worker of its own running the demo.
  'test/integration/library.test.ts',
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
  // Keyless workers stepping aside, one run waiting out the workflow task timeout (10 s) of the try the stopping worker had taken.
  'test/integration/codec-key-missing.test.ts',
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
  // `lev serve` processes, one refused at start, one serving a run over HTTP (issue 41).
  'test/integration/serve-http.test.ts',
  // `lev serve` and Chromium on an encrypted run (issue 41).
  'test/integration/serve-page.test.ts',
];

/**
 * Tests allowed over 30 s, as `file › full name`, with why; `slow-tests-reporter.ts` names any other.
 * None took 30 s in the quiet run of docs/benchmarks.md#the-test-suite (load average about 4); each of
 * these went over it in a run at load average 6 to 8, because each starts, kills and replaces worker
 * or `lev` processes, whose start-up (a Node process loading the SDK and the workflow bundle) is what
 * a loaded machine slows down.
 */
export const LONG_TESTS: string[] = [
  // Three benches, each with its own dev server and worker processes (40-81 s at load 6-8).
  'test/integration/bench-smoke.test.ts › process benches > burst runs two agents to the end beside both floors and reports every column',
  'test/integration/bench-smoke.test.ts › process benches > days drives a run for two short simulated days, through continue-as-new',
  'test/integration/bench-smoke.test.ts › process benches > crash resumes every agent on the replacement worker',
  // A worker process killed mid-turn and replaced (31-70 s at load 6-8), in both inference shapes.
  'test/integration/crash-resume.test.ts › crash and resume, inferences as activity > finishes on a second worker with the same region set and no completed turn served twice',
  'test/integration/crash-resume.test.ts › crash and resume, inferences as activity > a worker stopped with SIGTERM hands its inference back: as an activity at once (a failure, not a timeout), as a local one with its workflow task',
  'test/integration/crash-resume.test.ts › crash and resume, inferences as local > finishes on a second worker with the same region set and no completed turn served twice',
  'test/integration/crash-resume.test.ts › crash and resume, inferences as local > a worker stopped with SIGTERM hands its inference back: as an activity at once (a failure, not a timeout), as a local one with its workflow task',
  'test/integration/fan-out-crash.test.ts › fan-out across worker processes, inferences as activity > completes on another worker process when the one running it is killed',
  'test/integration/fan-out-crash.test.ts › fan-out across worker processes, inferences as activity > cancels every running worker when the parent run is cancelled, and starts no more',
  'test/integration/fan-out-crash.test.ts › fan-out across worker processes, inferences as local > completes on another worker process when the one running it is killed',
  'test/integration/fan-out-crash.test.ts › fan-out across worker processes, inferences as local > cancels every running worker when the parent run is cancelled, and starts no more',
  // `lev` processes with their own workers and embedded server (30-41 s at load 6-8).
  'test/integration/operator-cli.test.ts › lev attach > resumes a run whose worker was killed, serving its workdir as well, and prints its result',
  'test/integration/operator-cli.test.ts › Ctrl-C on lev run > detaches on the first press; the run finishes in the background and can be followed again',
  'test/integration/operator-cli.test.ts › the embedded server of lev run > keeps a detached run in .leviath/data, where the background attach and a later one find it',
];

/** A test longer than this is named at the end of a run unless `LONG_TESTS` lists it. */
export const LONG_TEST_MS = 30_000;
