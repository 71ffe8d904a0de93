/**
 * Builds the Leviath worker: the workflow bundle plus every activity, on
 * one task queue. `lev worker`, `lev run` (in-process) and the
 * integration tests all go through here.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  type ActivityInterceptorsFactory,
  bundleWorkflowCode,
  DefaultLogger,
  type LogLevel,
  NativeConnection,
  Runtime,
  type WorkerOptions as SdkWorkerOptions,
  Worker,
} from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { codecOption } from '../codec/payload-codec.js';
import { DEFAULT_TASK_QUEUE } from '../runtime/defaults.js';
import {
  DEFAULT_ACTIVITY_SLOTS,
  DEFAULT_WORKFLOW_THREADS,
  defaultRuntimeConfig,
  type RuntimeConfig,
} from '../runtime/node/run-store.js';
import { PROJECT_ROOT } from '../state/project-root.js';
import { jsonLine, type LogFormat, runLogInterceptor } from '../telemetry/logs.js';
import { tracingActivityInterceptors, workflowSinks } from '../telemetry/tracing.js';
import { connectOptions, type ServerChoice, serverSettings } from './connection.js';
import { type DeploymentChoice, versioningOptions, workerDeployment } from './deployment.js';
import { stopWithoutKey } from './key-stop.js';

export { DEFAULT_ADDRESS, DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE } from '../runtime/defaults.js';

const require = createRequire(import.meta.url);
/** This module runs from the sources (`.ts`, through tsx or vitest) or bundled into the compiled build in `dist/`. */
const compiled = !import.meta.url.endsWith('.ts');

export function workflowsPath(): string {
  return compiled ? join(PROJECT_ROOT, 'workflows', 'index.ts') : require.resolve('../../workflows/index.ts');
}

/** The OpenTelemetry interceptors every workflow of the bundle runs with (docs/reference/operating.md#traces). */
export function workflowSpansPath(): string {
  return join(dirname(workflowsPath()), 'spans.ts');
}

/**
 * Bundles the workflow code once; workers can share the result. The source map keeps lines but
 * not the sources' text: the SDK parses the map in every worker's workflow thread, and the full
 * one made an idle worker about 25 MB larger.
 */
export async function bundleWorkflows(): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: [workflowSpansPath()],
    preloadModules: libraryModules(),
    logger: quietBundlerLogger,
    webpackConfigHook: (config) => ({ ...config, devtool: 'inline-nosources-cheap-source-map' }),
  });
}

/**
 * The library modules the workflows import (`../src/...`, not type-only),
 * which the SDK then evaluates once per worker thread instead of once per
 * workflow: a fan-out's workers each evaluated them anew, a large share of
 * a worker's start (bench/fanout.ts). They may be shared because they are
 * pure (docs/architecture.md): no workflow APIs at module scope, and no
 * state but caches of pure results.
 */
export function libraryModules(): string[] {
  const dir = dirname(workflowsPath());
  const specs = new Set<string>();
  for (const file of workflowFiles(dir))
    for (const m of readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*? from '((?:\.\.\/)+src\/[^']+)';/gms))
      specs.add(relative(dir, resolve(dirname(file), m[1] as string)).replaceAll(sep, '/'));
  return [...specs].sort();
}

/** The workflow sources, in the wings (`run/`, `visit/`, `agents/`) too. */
function workflowFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? workflowFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * The workflow bundle `scripts/build.mjs` prebuilt beside the compiled build, which is only
 * run when it is fresh (`bin/lev.mjs`); from the sources, the workflows are bundled at start.
 */
function prebuiltBundle(): { codePath: string } | undefined {
  return compiled ? { codePath: join(PROJECT_ROOT, 'dist', 'workflow-bundle.js') } : undefined;
}

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error(message: string, meta?: Record<string, unknown>) {
    process.stderr.write(`workflow bundler: ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}\n`);
  },
  log() {},
};

let runtimeInstalled = false;

/**
 * The SDK logs every worker state change at INFO to stdout, which would bury
 * the per-turn output of `lev run`; we keep warnings and errors. The
 * runtime can be installed once per process, before the first worker.
 * `ownSignals` leaves SIGINT and SIGTERM to the caller (`lev run` and `lev
 * attach` detach on the first Ctrl-C instead of stopping their workers).
 */
export function installRuntime(
  level: LogLevel = 'WARN',
  opts: {
    ownSignals?: boolean;
    /** `HOST:PORT` to serve Prometheus metrics on: the SDK Core's and Leviath's (docs/reference/operating.md#metrics). */
    metrics?: string;
    /** `json`: one JSON object a line on stderr, with the run, stage and turn of activities (docs/reference/operating.md#json-logs). */
    logFormat?: LogFormat;
  } = {},
): void {
  // A program that installed a runtime of its own before making a worker here keeps it (docs/library.md#the-worker).
  if (runtimeInstalled || Runtime._instance) return;
  runtimeInstalled = true;
  Runtime.install({
    logger:
      opts.logFormat === 'json'
        ? new DefaultLogger(level, (entry) => process.stderr.write(jsonLine(entry)))
        : new DefaultLogger(level),
    telemetryOptions: {
      // The SDK core logs on its own at WARN; a caller that keeps only errors means its warnings too.
      ...(level === 'ERROR' ? { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } : {}),
      ...(opts.metrics ? { metrics: { prometheus: { bindAddress: opts.metrics } } } : {}),
    },
    ...(opts.ownSignals ? { shutdownSignals: [] } : {}),
  });
}

/** A workflow bundle built ahead (`LEVIATH_BUNDLE`: the Docker image, tests) saves seconds of bundling per start. */
export function bundleFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<WorkerOptions, 'bundle'> {
  return env.LEVIATH_BUNDLE ? { bundle: { codePath: env.LEVIATH_BUNDLE } } : {};
}

/** Every worker's activity interceptors: run attributes on log lines, and spans when tracing runs. */
export function activityInterceptors(): ActivityInterceptorsFactory[] {
  return [() => runLogInterceptor(), ...tracingActivityInterceptors()];
}

/** How often at most a heartbeat reaches the server; the reply's text so far rides on them. */
export const HEARTBEAT_THROTTLE = '200 milliseconds';

/** Where to connect (flags over the environment over the `temporal.toml` profile, `connection.ts`), and what to serve. */
export interface WorkerOptions extends ServerChoice, Omit<LeviathWorkerChoice, 'onKeyMissing'> {}

/** What `leviathWorkerOptions` needs: where activities keep blobs, the bundle, the queue and the deployment. */
export interface LeviathWorkerChoice {
  taskQueue?: string;
  /** The Worker Deployment version to serve (docs/reference/operating.md#safe-deploys); from the environment when unset. */
  deployment?: DeploymentChoice;
  /** A prebuilt bundle (`bundleWorkflows`) or a path to one; the build's prebuilt one, else bundled on demand. */
  bundle?: { code: string } | { codePath: string };
  identity?: string;
  /** Where activities keep blobs and how many run at once; defaults from the environment and user config. */
  runtime?: RuntimeConfig;
  /** Called when a payload is encrypted and this process has no key (`key-stop.ts`); a `lev` worker stops polling then. */
  onKeyMissing?: () => void;
}

/** `Worker.create`'s options without the connection and the namespace, the task queue set. */
export type LeviathWorkerOptions = Omit<SdkWorkerOptions, 'connection' | 'namespace' | 'taskQueue'> & {
  taskQueue: string;
};

/**
 * Everything `Worker.create` takes for Leviath's workflows and activities but the connection
 * and the namespace: `createWorker` and a program's own worker (docs/library.md) use it alike.
 */
export async function leviathWorkerOptions(opts: LeviathWorkerChoice = {}): Promise<LeviathWorkerOptions> {
  const runtime = opts.runtime ?? defaultRuntimeConfig();
  const workflowBundle = opts.bundle ?? prebuiltBundle() ?? (await bundleWorkflows());
  return {
    taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle,
    activities: createActivities(runtime),
    // The Postgres blob pool holds one connection per slot, so a slot never waits for a connection.
    maxConcurrentActivityTaskExecutions: runtime.activitySlots ?? DEFAULT_ACTIVITY_SLOTS,
    workflowThreadPoolSize: runtime.workflowThreads ?? DEFAULT_WORKFLOW_THREADS,
    ...(runtime.queueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: runtime.queueActivitiesPerSecond }
      : {}),
    // Calls in flight are cancelled at once on shutdown (and retried elsewhere); this bounds the rest, so SIGTERM stops a worker, and lev run with its embedded server, within 10 s.
    shutdownForceTime: '5 seconds',
    // A workflow task left on a dead worker's sticky queue moves to the shared queue after this,
    // instead of the SDK's 10 s, so runs resume soon after a crash (docs/architecture.md#temporal-limits).
    stickyQueueScheduleToStartTimeout: '3 seconds',
    // The inference activity heartbeats the reply's text as it streams; the SDK sends the latest at most
    // this often, which bounds token-to-subscriber latency (docs/reference/events.md#the-token-channel).
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...codecOption(runtime.env, opts.onKeyMissing),
    ...versioningOptions(workerDeployment(opts.deployment, runtime.env)),
    interceptors: { activity: activityInterceptors() },
    sinks: workflowSinks(),
  };
}

export async function createWorker(
  opts: WorkerOptions = {},
): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime();
  const runtime = opts.runtime ?? defaultRuntimeConfig();
  const server = serverSettings(opts, runtime.env);
  const connection = await NativeConnection.connect(connectOptions(server));
  const keyStop = stopWithoutKey();
  const worker = await Worker.create({
    connection,
    namespace: server.namespace,
    ...(await leviathWorkerOptions({ ...opts, runtime, onKeyMissing: keyStop.onMissing })),
  });
  keyStop.attach(worker);
  return { worker, connection };
}
