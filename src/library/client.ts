import { Client, Connection, type TLSConfig, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { launchInput } from '../cli/launch-input.js';
import { codecOption } from '../codec/payload-codec.js';
import { LevError } from '../errors.js';
import { DEFAULT_TASK_QUEUE } from '../runtime/defaults.js';
import type { operatorUpdates } from '../runtime/messages.js';
import type { OperatorReturn, OperatorUpdate } from '../runtime/people/updates.js';
import type { Progress, RunResult } from '../runtime/types.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { connectOptions, serverChoice, serverSettings } from '../worker/connection.js';
import { type CancelEnd, cancelRun, runProgress, sendUpdate } from '../worker/operators.js';
import { followRun, runOutcome, startRun } from '../worker/run-client.js';
import { describeRun } from '../worker/runs.js';
import { probeServer } from '../worker/server-probe.js';

/** How long `connect` waits for the server to answer before it says none does, as `lev` does. */
const CONNECT_TIMEOUT_MS = 5000;

/** Where to connect; what is not given comes from the environment and `temporal.toml`, as for `lev`. */
export interface ConnectOptions {
  /** `HOST:PORT`; `TEMPORAL_ADDRESS`, else the profile's, else `localhost:7233`. */
  address?: string;
  namespace?: string;
  /** The `temporal.toml` profile; `TEMPORAL_PROFILE`, else "default". */
  profile?: string;
  /** TLS settings, or `true` for TLS with the system's roots; `TEMPORAL_TLS*` otherwise. */
  tls?: TLSConfig | boolean;
  /** A Temporal Cloud API key; `TEMPORAL_API_KEY` otherwise. */
  apiKey?: string;
  /** The key file of encrypted payloads (docs/reference/operating.md#encrypted-payloads); `LEVIATH_CODEC_KEY_FILE` otherwise. */
  codecKeyFile?: string;
  /** The environment the settings above default from, and that blueprints and the user config are read with. */
  env?: NodeJS.ProcessEnv;
}

/** How a run starts: `lev run`'s flags, by the same names. */
export interface StartOptions {
  task?: string;
  /** The run's working directory, on the machine whose worker serves its tools; the current one by default. */
  workdir?: string;
  /** Named caller values (`--input key=value`). */
  input?: Record<string, string>;
  /** Every stage's model (`--model`), such as `scripted:demo`. */
  model?: string;
  /** The task queue of the workers that run it; `leviath` by default. */
  taskQueue?: string;
  /** The task queue of the workdir's tool worker (`--tool-queue`); without one, tools run on `taskQueue`'s workers. */
  toolTaskQueue?: string;
  /** The run id (`--id`); one is made from the agent's name otherwise. */
  runId?: string;
  /** What people call the run (`--title`): `lev ps` and the Web UI show it. */
  title?: string;
  /** A person attends the run (docs/reference/operators.md#attended-runs). */
  attended?: boolean;
  /** Tools whose `ask` becomes `allow` (`--allow`). */
  allow?: string[];
  /** Every `ask` becomes `allow`; a `deny` stays (`--yolo`). */
  yolo?: boolean;
  /** False refuses command seeds (`--no-seed-commands`). */
  seedCommands?: boolean;
  /** Notices a launch gives, such as running without a sandbox; dropped by default. */
  onNotice?: (line: string) => void;
}

/** The arguments and the answer of one of the run's updates, read off its definition. */
type Updates = typeof operatorUpdates;
type UpdateArgs<K extends OperatorUpdate> = Updates[K] extends UpdateDefinition<OperatorReturn, infer A> ? A : never;
type UpdateAnswer<K extends OperatorUpdate> = Updates[K] extends UpdateDefinition<infer R, unknown[]> ? R : never;

/** One run: its progress, the operators' updates, its cancellation and its result. */
export class LeviathRun {
  constructor(
    /** The Temporal client it talks through. */
    readonly temporal: Client,
    readonly runId: string,
    private readonly address: string,
  ) {}

  /** The run's workflow, for what Temporal's own API offers beyond this class. */
  get handle(): WorkflowHandle {
    return this.temporal.workflow.getHandle(this.runId);
  }

  /** The run's progress now (`lev show`'s), or undefined when no worker answers for it. */
  async status(): Promise<Progress | undefined> {
    await describeRun(this.temporal, this.runId, this.address);
    return runProgress(this.temporal, this.handle);
  }

  /**
   * Each new turn's progress, as `lev run` prints a line for it, until the run ends;
   * leaving the loop early stops following, and the run goes on.
   */
  async *progress(opts: { intervalMs?: number } = {}): AsyncGenerator<Progress, void> {
    await describeRun(this.temporal, this.runId, this.address);
    const turns: Progress[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const stop = new AbortController();
    const following = followRun(
      this.temporal,
      this.handle,
      (p) => {
        turns.push(p);
        wake?.();
      },
      { ...opts, signal: stop.signal },
    ).finally(() => {
      ended = true;
      wake?.();
    });
    // Left unawaited when the caller stops early; its rejection then is the abort asked for.
    following.catch(() => {});
    try {
      for (;;) {
        const next = turns.shift();
        if (next) yield next;
        else if (ended) {
          await following;
          return;
        } else await new Promise<void>((r) => (wake = r));
      }
    } finally {
      stop.abort();
    }
  }

  /** The run's result once it has ended: `completed`, `failed` with what it had, or `cancelled`. */
  async result(): Promise<RunResult> {
    await describeRun(this.temporal, this.runId, this.address);
    return runOutcome(this.handle);
  }

  private send<K extends OperatorUpdate>(update: K, args: UpdateArgs<K>): Promise<UpdateAnswer<K>> {
    return sendUpdate(this.temporal, this.runId, update, args[0]) as Promise<UpdateAnswer<K>>;
  }

  /** A message to the model: the next stage that accepts messages reads it. */
  message(...args: UpdateArgs<'message'>): Promise<UpdateAnswer<'message'>> {
    return this.send('message', args);
  }
  /** Approves the tool call waiting for approval (`call` names one when several wait). */
  approve(...args: UpdateArgs<'approve'>): Promise<UpdateAnswer<'approve'>> {
    return this.send('approve', args);
  }
  deny(...args: UpdateArgs<'deny'>): Promise<UpdateAnswer<'deny'>> {
    return this.send('deny', args);
  }
  /** Answers the agent's question (docs/reference/interaction.md#answering). */
  answer(...args: UpdateArgs<'answer'>): Promise<UpdateAnswer<'answer'>> {
    return this.send('answer', args);
  }
  /** Stops the run before its next inference, until `resume`. */
  pause(): Promise<UpdateAnswer<'pause'>> {
    return this.send('pause', []);
  }
  resume(): Promise<UpdateAnswer<'resume'>> {
    return this.send('resume', []);
  }

  /**
   * Asks the run to stop at its next safe point (docs/reference/operators.md#cancellation);
   * with `wait`, resolves once it has ended. A wedged run is terminated after `graceMs`.
   */
  cancel(opts: { wait?: boolean; graceMs?: number } = {}): Promise<CancelEnd> {
    return cancelRun(this.temporal, this.runId, opts);
  }
}

export class LeviathClient {
  constructor(
    /** The Temporal client, with Leviath's payload codec. */
    readonly temporal: Client,
    readonly address: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * Starts a run of a blueprint: a directory or file, an installed agent, a
   * pushed `name@version`, or one already loaded (`loadBlueprint`). A blueprint
   * with errors is refused with `blueprint-invalid`, its findings on the error.
   */
  async start(blueprint: string | Blueprint, opts: StartOptions = {}): Promise<LeviathRun> {
    const input = await launchInput(
      blueprint,
      {
        ...(opts.task !== undefined ? { task: opts.task } : {}),
        caller: opts.input ?? {},
        ...(opts.model ? { model: opts.model } : {}),
        workdir: opts.workdir ?? process.cwd(),
        seedCommands: opts.seedCommands !== false,
        ...(opts.attended ? { attended: true } : {}),
        ...(opts.yolo ? { yolo: true } : {}),
        allow: opts.allow ?? [],
        ...(opts.toolTaskQueue !== undefined ? { toolQueue: opts.toolTaskQueue } : {}),
        ...(opts.title !== undefined ? { title: opts.title } : {}),
      },
      { say: opts.onNotice ?? (() => {}), quiet: true, env: this.env, workdirToolQueue: false },
    );
    const handle = await startRun(this.temporal, input, {
      taskQueue: opts.taskQueue ?? DEFAULT_TASK_QUEUE,
      ...(opts.runId ? { workflowId: opts.runId } : {}),
    });
    return this.run(handle.workflowId);
  }

  /** A run started before, by its id; a run the server does not know is refused with `run-not-found` when used. */
  run(runId: string): LeviathRun {
    return new LeviathRun(this.temporal, runId, this.address);
  }

  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}

/**
 * A client of the server the options and the environment name. A server that
 * is not there, a namespace it lacks, a TLS mismatch or refused credentials
 * are each one coded error, as `lev` says them (docs/reference/operating.md#connection-problems).
 */
export async function connect(opts: ConnectOptions = {}): Promise<LeviathClient> {
  const env = {
    ...(opts.env ?? process.env),
    ...(opts.codecKeyFile ? { LEVIATH_CODEC_KEY_FILE: opts.codecKeyFile } : {}),
  };
  const settings = {
    ...serverSettings(serverChoice(opts), env),
    ...(opts.tls !== undefined ? { tls: opts.tls } : {}),
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
  };
  // The key file is read before connecting, so a wrong one is said before anything else.
  const codec = codecOption(env);
  await probeServer(settings, { callTimeoutMs: CONNECT_TIMEOUT_MS });
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectOptions(settings), connectTimeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw new LevError(
      'server-unreachable',
      `The Temporal server at ${settings.address} stopped answering (${(err as Error).message}); check that it runs.`,
    );
  }
  return new LeviathClient(new Client({ connection, namespace: settings.namespace, ...codec }), settings.address, env);
}
