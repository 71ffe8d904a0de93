/**
 * Drives the pure engine from workflow code: answers its requests with
 * activities, records every operation for replay on the activity side, and
 * keeps the snapshot-plus-operations pair the inference activity receives.
 */

import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { CustomRegionHooks, EngineEnv, RunState } from '../src/context/index.js';
import {
  type AppliedOp,
  addUsage,
  applyLive,
  applyNow,
  type Carried,
  ENGINE,
  emptyUsage,
  encodingFor,
  isLater,
  lookupModel,
  type NowOrLater,
  type OpCall,
  type OpResults,
  opMetrics,
  type RecordedOp,
  type RunOptions,
  snapshotDue,
  stageModel,
  type UsageTotals,
  type WriteEviction,
} from '../src/runtime/index.js';
import { customRegionHooks } from '../src/runtime/region-hooks.js';
import { entriesBefore, regionEvents } from '../src/runtime/stream-events.js';
import type { EngineRequest, SummaryAnswer } from '../src/shapes/engine-requests.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import type { Encoding } from '../src/shapes/model-info.js';
import type { NewEvent } from '../src/shapes/run-events.js';
import { activities, callOptions, countOptions, localActivities, stepOptions } from './activities.js';
import { emit } from './meter.js';

export function stageEncoding(bp: Blueprint, stage: string): Encoding {
  const model = stageModel(bp, stage);
  return encodingFor(model, lookupModel(bp.models, model));
}

export interface DriverContext {
  runId: string;
  blueprintHash: string;
  bp: Blueprint;
  options: RunOptions;
  log: (line: string) => void;
  /** Engine operations make no promise when nothing needs an activity (`VISIT_PATCHES_AT_ONCE`); absent in runs recorded before. */
  syncOps?: boolean;
  /** Where what an operation wrote, evicted and folded is told (the run's event stream). */
  events?: (event: NewEvent) => void;
}

/** One run's region set as the workflow holds it, plus how to replay it elsewhere. */
export class EngineDriver {
  state: RunState;
  private snapshot: string | null;
  private ops: Carried['ops'] = [];
  private readonly hooks: ((region: string) => CustomRegionHooks | undefined) | undefined;
  stage: string;
  turn = 0;
  /** What compaction calls cost since the caller last took it (`takeSummaryUsage`). */
  private summaryUsage: UsageTotals = emptyUsage();
  /** Size of the operation log as JSON, for `snapshotDue`. */
  private opsBytes = 0;
  /** Counts the last inference made ahead, by text (`src/runtime/reply-counts.ts`). */
  private counted = new Map<string, number>();

  constructor(
    readonly ctx: DriverContext,
    carried: Carried,
  ) {
    this.state = carried.state;
    this.snapshot = carried.snapshot;
    this.setOps(carried.ops);
    this.hooks = customRegionHooks(ctx.bp, ctx.log);
    this.stage = carried.state.stage || ctx.bp.agent.entryStage;
  }

  takeSummaryUsage(): UsageTotals {
    const taken = this.summaryUsage;
    this.summaryUsage = emptyUsage();
    return taken;
  }

  /** Takes over the region set a child workflow hands back. */
  adopt(carried: Carried): void {
    this.state = carried.state;
    this.snapshot = carried.snapshot;
    this.setOps(carried.ops);
    if (carried.state.stage) this.stage = carried.state.stage;
  }

  carried(): Carried {
    return { state: this.state, snapshot: this.snapshot, ops: this.ops };
  }

  /** Base and operations for an activity that rebuilds the region set. */
  replayInput(): { base: string | null; ops: Carried['ops'] } {
    return { base: this.snapshot, ops: this.ops };
  }

  /** Whether the operation log has grown enough to be folded into a snapshot. */
  snapshotDue(): boolean {
    return snapshotDue(this.ops.length, this.opsBytes, this.ctx.options.opsPerSnapshot);
  }

  /**
   * Takes what an inference answered besides the reply: the snapshot it wrote of the first
   * `sent` operations, and the counts it made ahead.
   */
  afterInference(reply: { snapshot?: string; counted?: [string, number][] }, sent: number): void {
    if (reply.snapshot !== undefined) {
      this.snapshot = reply.snapshot;
      this.setOps(this.ops.slice(sent));
    }
    this.counted = new Map(reply.counted ?? []);
  }

  /** Folds the operation log into a new snapshot once it grows past the configured size. */
  async compactLog(force = false): Promise<void> {
    if (!force && this.ops.length < this.ctx.options.opsPerSnapshot) return;
    if (this.ops.length === 0) return;
    this.snapshot = await activities.saveSnapshot.executeWithOptions(
      callOptions(this.ctx.options, `snapshot: ${this.ops.length} operations`),
      [{ runId: this.ctx.runId, blueprintHash: this.ctx.blueprintHash, base: this.snapshot, ops: this.ops }],
    );
    this.setOps([]);
  }

  private setOps(ops: Carried['ops']): void {
    this.ops = [...ops];
    this.opsBytes = ops.reduce((sum, op) => sum + JSON.stringify(op).length, 0);
  }

  /**
   * Applies one operation and records it. With `syncOps` it makes no promise while every
   * request is answered at hand (`applyNow`); a visit recorded before that awaits each step
   * as it ran, so its commands replay in their order.
   */
  apply<C extends OpCall>(call: C): NowOrLater<OpResults[C['kind']]> {
    if (!this.ctx.syncOps) return this.applyAwaiting(call);
    const writes: WriteEviction[] = [];
    const env = this.env(writes);
    const before = this.ctx.events ? entriesBefore(this.state) : undefined;
    const applied = applyNow(ENGINE, this.state, this.ctx.bp, call, env, (req) => this.answerNow(req));
    return isLater(applied)
      ? applied.then(({ result, record }) => this.recorded(call, result, record, writes, before))
      : this.recorded(call, applied.result, applied.record, writes, before);
  }

  private async applyAwaiting<C extends OpCall>(call: C): Promise<OpResults[C['kind']]> {
    const writes: WriteEviction[] = [];
    const env = this.env(writes);
    const before = this.ctx.events ? entriesBefore(this.state) : undefined;
    const { result, record } = await applyLive(ENGINE, this.state, this.ctx.bp, call, env, (req) => this.answer(req));
    return this.recorded(call, result, record, writes, before);
  }

  private env(writes: WriteEviction[]): EngineEnv {
    return {
      now: Math.floor(Date.now() / 1000),
      ...(this.hooks ? { hooks: this.hooks } : {}),
      onEvict: (region, entries) => writes.push({ region: region.name, kind: region.kind, entries }),
    };
  }

  /** Keeps the record of an applied operation and tells its metrics and events; its result. */
  private recorded<C extends OpCall>(
    call: C,
    result: OpResults[C['kind']],
    record: RecordedOp,
    writes: WriteEviction[],
    before: ReturnType<typeof entriesBefore> | undefined,
  ): OpResults[C['kind']] {
    this.ops.push(record);
    this.opsBytes += JSON.stringify(record).length;
    if (this.state.stage) this.stage = this.state.stage;
    const applied = { call, result } as AppliedOp;
    emit(opMetrics(this.state, this.ctx.bp.agent.name, applied, writes));
    if (before) for (const e of regionEvents(before, this.state, applied, writes, Date.now())) this.ctx.events?.(e);
    return result;
  }

  /** A text's tokens: made ahead by the last inference, else counted by a `countText` local activity. */
  count(text: string): NowOrLater<number> {
    return this.ctx.syncOps ? this.countNow(text) : this.countAwaiting(text);
  }

  private countNow(text: string): NowOrLater<number> {
    return (
      this.counted.get(text) ??
      localActivities.countText.executeWithOptions(countOptions(), [
        { text, encoding: stageEncoding(this.ctx.bp, this.stage) },
      ])
    );
  }

  private async countAwaiting(text: string): Promise<number> {
    const ahead = this.counted.get(text);
    if (ahead !== undefined) return ahead;
    return localActivities.countText.executeWithOptions(countOptions(), [
      { text, encoding: stageEncoding(this.ctx.bp, this.stage) },
    ]);
  }

  /** `answer` without a promise for a count made ahead; what an activity answers is a promise anyway. */
  private answerNow(req: EngineRequest): NowOrLater<unknown> {
    return req.type === 'count' ? this.countNow(req.text) : this.answer(req);
  }

  private async answer(req: EngineRequest): Promise<unknown> {
    switch (req.type) {
      case 'count':
        return this.countAwaiting(req.text);
      case 'cut':
        return activities.cutText.executeWithOptions(
          callOptions(this.ctx.options, `cut text to ${req.target} tokens`),
          [
            {
              runId: this.ctx.runId,
              content: req.content,
              target: req.target,
              marker: req.marker,
              encoding: stageEncoding(this.ctx.bp, this.stage),
            },
          ],
        );
      case 'join':
        return activities.joinText.executeWithOptions(callOptions(this.ctx.options, `join ${req.parts.length} texts`), [
          { runId: this.ctx.runId, parts: req.parts },
        ]);
      case 'summarise':
        try {
          const { answer, usage } = await activities.summarise.executeWithOptions(
            stepOptions(this.ctx.options, `compaction: ${req.region}, ${req.entries.length} entries`),
            [
              {
                runId: this.ctx.runId,
                blueprintHash: this.ctx.blueprintHash,
                stage: this.stage,
                region: req.region,
                entries: req.entries,
                limit: req.limit,
                turn: this.turn,
                ...(req.prompt !== undefined ? { prompt: req.prompt } : {}),
              },
            ],
          );
          this.summaryUsage = addUsage(this.summaryUsage, { calls: 1, ...usage });
          return answer;
        } catch (err) {
          // A failed fold never blocks inference: the engine restores the entries
          // (docs/reference/regions.md#fold-failure).
          if (err instanceof ActivityFailure && !isCancellation(err))
            return { ok: false, error: err.cause?.message ?? err.message } satisfies SummaryAnswer;
          throw err;
        }
    }
  }
}
