/**
 * A run's patience with its workdir's tool worker (docs/reference/long-runs.md#tool_worker_patience):
 * every tool call or seed on the tool queue may wait only so long to be
 * taken; one that was not is scheduled again after a look at the queue's
 * pollers, and the decisions are `src/runtime/tool-patience.ts`'s. The run
 * and each visit hold one watch, shared by their calls: one look answers
 * every call that waited, and one absence is shown for all of them. Only
 * runs and visits that recorded `TOOL_WORKER_PATIENCE` have one. Workflow
 * code: the attempts and looks are what recorded histories replay.
 */
import {
  ActivityFailure,
  type ActivityOptions,
  ApplicationFailure,
  isCancellation,
  TimeoutFailure,
} from '@temporalio/workflow';
import {
  attemptsBefore,
  checkToolWorker,
  toolStartTimeoutMs,
  toolWorkerMissingText,
  toolWorkerPatienceMs,
} from '../src/runtime/tool-patience.js';
import type { RunOptions, ToolWorkerAbsence } from '../src/runtime/types.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import { activities, quickOptions } from './activities.js';

/** Starts one attempt of a call with these options; `attemptsBefore` counts attempts made before it waited. */
export type ToolStart<T> = (options: ActivityOptions, attemptsBefore: number) => Promise<T>;

/** The failure type of a call given up on: the run's failure code too. */
const GONE = 'tool-worker-missing';

export class ToolWorkerWatch {
  /** Since when the calls that wait now have waited with no tool worker polling; unset while one does. */
  private since: number | undefined;
  /** The absence shown now. */
  private absence: ToolWorkerAbsence | undefined;
  /** The look under way, which every call that waited meanwhile shares. */
  private looking: Promise<void> | undefined;
  /** Why the run gave up on its tool worker, once it has. */
  gone: string | undefined;

  constructor(
    private readonly at: { options: RunOptions; taskQueue: string; workdir: string; patienceMs: number },
    /** Shows the absence (or its end, undefined) in the status, the progress and the details. */
    private readonly show: (absence: ToolWorkerAbsence | undefined) => Promise<void> | void,
  ) {}

  /** Runs a call until it is taken, or fails it with `tool-worker-missing` once the patience has passed. */
  async call<T>(options: ActivityOptions, start: ToolStart<T>): Promise<T> {
    let before = 0;
    const first = Date.now();
    for (;;) {
      if (this.gone !== undefined) throw ApplicationFailure.nonRetryable(this.gone, GONE);
      const scheduled = Date.now();
      const absentMs = this.since === undefined ? 0 : scheduled - this.since;
      const waited = { patienceMs: this.at.patienceMs, waitedMs: scheduled - first, absentMs };
      const timeout = toolStartTimeoutMs(waited, this.at.options);
      try {
        const out = await start({ ...options, scheduleToStartTimeout: timeout }, before);
        await this.taken();
        return out;
      } catch (err) {
        const notTaken = notTakenIn(err);
        if (!notTaken) {
          // A call that ran and failed was taken all the same; a cancelled one says nothing of the worker.
          if (err instanceof ActivityFailure && !isCancellation(err)) await this.taken();
          throw err;
        }
        before = attemptsBefore(notTaken.lastHeartbeatDetails, before);
      }
      this.since ??= scheduled;
      this.looking ??= this.look().finally(() => {
        this.looking = undefined;
      });
      await this.looking;
    }
  }

  /** Asks the server whether a tool worker polls, and shows, clears or gives up on the absence. */
  private async look(): Promise<void> {
    const { taskQueue, workdir, patienceMs } = this.at;
    const { pollerAgesMs } = await activities.toolQueuePollers.executeWithOptions(
      quickOptions(`tool worker of ${workdir}`),
      [{ taskQueue }],
    );
    const since = this.since ?? Date.now();
    const check = checkToolWorker(
      { taskQueue, workdir, since, now: Date.now(), patienceMs, pollerAgesMs },
      this.at.options,
    );
    if (check.kind === 'present') {
      this.since = undefined;
      return this.taken();
    }
    if (check.kind === 'gone') this.gone = toolWorkerMissingText(check.absence);
    if (this.absence?.since !== check.absence.since) {
      this.absence = check.absence;
      await this.show(check.absence);
    }
  }

  /** A call was taken: the tool worker is there, and a wait shown ends. */
  private async taken(): Promise<void> {
    this.since = undefined;
    if (!this.absence) return;
    this.absence = undefined;
    await this.show(undefined);
  }
}

/** The watch of a run or visit on its workdir's tool queue that recorded `TOOL_WORKER_PATIENCE`; none otherwise. */
export function toolWatch(
  run: { options: RunOptions; workdir: string; blueprint?: Blueprint },
  patient: boolean | undefined,
  show: (absence: ToolWorkerAbsence | undefined) => Promise<void> | void,
): ToolWorkerWatch | undefined {
  const taskQueue = run.options.toolTaskQueue;
  if (!patient || !taskQueue) return undefined;
  const patienceMs = toolWorkerPatienceMs(run.blueprint ?? {});
  return new ToolWorkerWatch({ options: run.options, taskQueue, workdir: run.workdir, patienceMs }, show);
}

/** Runs a call through the watch of a run or visit that has one, else as before. */
export function onToolWorker<T>(
  watch: ToolWorkerWatch | undefined,
  options: ActivityOptions,
  start: ToolStart<T>,
): Promise<T> {
  return watch ? watch.call(options, start) : start(options, 0);
}

/** The message of a call given up on for want of a tool worker, else undefined. */
export function toolWorkerGone(err: unknown): string | undefined {
  return err instanceof ApplicationFailure && err.type === GONE ? err.message : undefined;
}

/** The timeout of an attempt no worker took in time, else undefined. */
function notTakenIn(err: unknown): TimeoutFailure | undefined {
  return err instanceof ActivityFailure &&
    err.cause instanceof TimeoutFailure &&
    err.cause.timeoutType === 'SCHEDULE_TO_START'
    ? err.cause
    : undefined;
}
