/**
 * The agent tools of a stage visit (docs/reference/sub-agents.md): each
 * sub-agent is a child `agentRunWorkflow` with id `<run id>/<item id>`, its
 * own region set and its own stage visits. A fan-out starts its workers in
 * item order, at most `max_workers` at once (the rest wait here, in the
 * parent; `workers.ts`), gathers them as they finish and hands back one
 * merged report from the blob store; a fan-out too large for one history
 * goes through shard workflows (`fan-out-shard.ts`). Agents started without
 * waiting belong to the visit that started them: it waits for them before it
 * ends. Every decision and text comes from `src/runtime/agents/`; this file
 * only sequences child workflows.
 */
import { ActivityFailure, isCancellation, ParentClosePolicy, startChild } from '@temporalio/workflow';
import {
  addSpend,
  agentFailedText,
  agentNotFoundMessage,
  alreadyEndedText,
  childRunId,
  DEFAULT_SHARD_ITEMS,
  EARLIER_FAILURE,
  FAN_OUT,
  FAN_OUT_NOT_ALONE_MESSAGE,
  type FanOutItem,
  FanOutQueue,
  failureCause,
  handoffParts,
  itemShare,
  killedText,
  type Lineage,
  noSpend,
  type ReportItem,
  readAgentId,
  readFanOut,
  readSpawn,
  resultRoom,
  runningText,
  type ShardPlan,
  type ShardResult,
  type SpawnContext,
  type Spend,
  type StageInput,
  sendFailedText,
  sentText,
  shardEnd,
  shardInput,
  shardPlan,
  shardRunId,
  startedText,
  sumShardCounts,
  type ToolRefusal,
  toolRefusalText,
  topLineage,
  unansweredShard,
  type WorkerCounts,
  type WorkerEnd,
  type WorkerSpec,
  type WorkerTarget,
  workerShare,
  workerSpec,
} from '../../src/runtime/index.js';
import type { Content, ToolCall } from '../../src/shapes/content.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { activities, callOptions, stepOptions } from '../activities.js';
import { startedId } from '../child-ids.js';
import { type EngineDriver, stageEncoding } from '../engine-driver.js';
import { type Changed, type Child, drainQueue, runWorkers, startWorker, withoutPreview } from './workers.js';

/** A tool result of an agent tool, before it is routed; tokens are absent when the visit counts the inline text. */
export interface AgentAnswer {
  content: Content;
  tokens?: number;
  isError: boolean;
  /** A `fan_out` call whose workers ran (even none): what a fan-out stage owes. */
  fannedOut?: boolean;
}

export class SubAgents {
  private readonly children = new Map<string, Child>();
  /** The counts of the fan-out in flight, if one is. */
  private fanCounts: (() => WorkerCounts) | undefined;
  /** What the agents and workers that ended spent, whole trees (docs/reference/sub-agents.md#usage). */
  spent: Spend = noSpend();
  /** A child started or ended: its spend counts, and the visit's details show it. */
  private readonly ended: Changed = (end) => {
    if (end?.spend) this.spent = addSpend(this.spent, end.spend);
    this.changed();
  };

  constructor(
    private readonly input: StageInput,
    private readonly def: StageDef,
    private readonly driver: EngineDriver,
    /** Called whenever a child starts or ends, so the visit's details show the counts. */
    private readonly changed: () => void = () => {},
    /** `CONTEXT_HANDOFFS`: an agent started is handed the regions `[[transforms]]` maps for it. */
    private readonly handsOff = false,
  ) {}

  private get lineage(): Lineage {
    return this.input.lineage ?? topLineage(this.input.blueprint);
  }

  private get spawner(): SpawnContext {
    return { bp: this.input.blueprint, blueprintHash: this.input.blueprintHash, lineage: this.lineage };
  }

  /** Workers of the fan-out in flight plus agents still running, for the visit's progress. */
  counts(): WorkerCounts | undefined {
    const running = [...this.children.values()].filter((c) => !c.end).length;
    const fan = this.fanCounts?.();
    if (!fan && running === 0) return undefined;
    const base = fan ?? { queued: 0, running: 0, done: 0, failed: 0 };
    return { ...base, running: base.running + running };
  }

  /** True while an agent this visit started without waiting is still running. */
  get open(): boolean {
    return [...this.children.values()].some((c) => !c.end);
  }

  /** Waits for every agent this visit started: a visit never ends with its agents still running. */
  async settle(): Promise<void> {
    await Promise.all([...this.children.values()].map((c) => c.done));
  }

  /** Answers one agent tool call; `alone` says whether it is the only call of its turn. */
  async answer(call: ToolCall, alone: boolean): Promise<AgentAnswer> {
    const args = call.arguments;
    switch (call.name) {
      case FAN_OUT:
        return this.fanOut(args, alone);
      case 'spawn_agent':
        return this.spawn(call, args);
      case 'check_agent':
        return this.check(args);
      case 'wait_for_agent':
        return this.waitFor(args);
      case 'kill_agent':
        return this.kill(args);
      case 'send_to_agent':
        return this.send(args);
      default:
        return refused({ ok: false, code: 'unknown-tool', message: `there is no agent tool \`${call.name}\`.` });
    }
  }

  /** What every child of this visit started for `target` shares, the context handed to it as the region set is now. */
  private spec(target: WorkerTarget, answerOwed = false): WorkerSpec {
    const { runId, blueprintHash, workdir, options, blueprint } = this.input;
    const mappings = this.handsOff && 'agent' in target.blueprint ? blueprint.handoffs?.[target.blueprint.agent] : [];
    return workerSpec(
      { runId, blueprintHash, stage: this.def.name, lineage: this.lineage, workdir, options },
      target,
      answerOwed,
      handoffParts(mappings ?? [], this.driver.state),
    );
  }

  private async fanOut(args: Record<string, unknown>, alone: boolean): Promise<AgentAnswer> {
    if (!alone)
      return refused({
        ok: false,
        code: 'fan-out-not-alone',
        message: FAN_OUT_NOT_ALONE_MESSAGE,
      });
    const call = readFanOut(this.spawner, this.def, args);
    if ('ok' in call) return refused(call);
    const { items, target } = call;
    const limit = this.def.fanOut?.maxWorkers ?? 0;
    const failFast = this.def.fanOut?.onWorkerFailure === 'fail';
    const spec = await this.withStoredShare(this.spec(target, this.def.fanOut?.requireOutput === true), items.length);
    const sectionTokens = itemShare(resultRoom(this.driver.state, this.def.toolRouting, FAN_OUT, 64), items.length);
    const plan = shardPlan(items.length, limit, this.input.options.fanOutShardItems ?? DEFAULT_SHARD_ITEMS);
    if (plan) return this.fanOutSharded(plan, items, spec, failFast, sectionTokens);
    let report: ReportItem[];
    try {
      ({ items: report } = await runWorkers(
        spec,
        items,
        limit,
        failFast,
        (queue) => {
          this.fanCounts = () => queue.counts();
        },
        this.ended,
      ));
    } finally {
      this.fanCounts = undefined;
    }
    const merged = await activities.fanOutReport.executeWithOptions(
      stepOptions(this.input.options, `fan-out report: ${items.length} workers`),
      [
        {
          runId: this.input.runId,
          blueprintHash: this.input.blueprintHash,
          stage: this.def.name,
          items: report.map(withoutPreview),
          share: sectionTokens,
        },
      ],
    );
    const failed = report.some((r) => r.status === 'failed');
    return { content: merged.content, tokens: merged.tokens, isError: failFast && failed, fannedOut: true };
  }

  /** The spec with what its workers share stored once, so each worker's start carries only its task. */
  private async withStoredShare(spec: WorkerSpec, workers: number): Promise<WorkerSpec> {
    if (workers === 0) return spec;
    const shared = await activities.storeWorkerShare.executeWithOptions(
      stepOptions(this.input.options, `fan-out: what its ${workers} workers share`),
      [{ runId: this.input.runId, share: workerShare(spec) }],
    );
    return { ...spec, shared };
  }

  /**
   * A fan-out too large for one visit's history: its items go to shard
   * workflows in order, at most `plan.concurrent` at once with `plan.limit`
   * workers each; the report is joined from their parts. A failure under
   * `on_worker_failure = "fail"` stops its own shard, and no shard starts
   * after it (docs/reference/sub-agents.md#large-fan-outs).
   */
  private async fanOutSharded(
    plan: ShardPlan,
    items: FanOutItem[],
    spec: WorkerSpec,
    failFast: boolean,
    sectionTokens: number,
  ): Promise<AgentAnswer> {
    const slices = plan.ranges.map((range) => items.slice(range.from, range.to));
    const queue = new FanOutQueue(
      plan.ranges.length,
      plan.concurrent,
      failFast,
      slices.map((slice) => slice.length),
    );
    const results: ShardResult[] = [];
    this.fanCounts = () => queue.counts();
    const job = { blueprintHash: this.input.blueprintHash, stage: this.def.name, limit: plan.limit, failFast };
    try {
      await drainQueue(
        queue,
        {
          start: (k) => {
            const range = plan.ranges[k]!;
            const slice = slices[k]!;
            return startChild('fanOutShardWorkflow', {
              workflowId: startedId(shardRunId(this.input.runId, k)),
              args: [shardInput(spec, { ...job, items: slice, share: sectionTokens })],
              parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
              staticSummary: `${spec.label}: items ${range.from + 1} to ${range.to}`,
            })
              .then((handle) => handle.result() as Promise<ShardResult>)
              .then(
                (result) => result,
                (err: unknown): ShardResult =>
                  isCancellation(err)
                    ? unansweredShard(slice, 'cancelled', 'the shard running these items was cancelled')
                    : unansweredShard(
                        slice,
                        'failed',
                        `the shard running these items failed: ${failureCause(err, 'stage-failed').message}`,
                      ),
              );
          },
          ended: (k, result) => {
            results[k] = result;
            if (result.spend) this.spent = addSpend(this.spent, result.spend);
            return shardEnd(result);
          },
          // A running shard is left to finish its slice: a failure stops its own shard, and no shard starts after it.
          stop: () => {},
        },
        () => this.changed(),
      );
    } finally {
      this.fanCounts = undefined;
    }
    const parts = slices.map((slice, k) => results[k] ?? unansweredShard(slice, 'not-started', EARLIER_FAILURE));
    const counts = sumShardCounts(parts);
    const merged = await activities.fanOutJoin.executeWithOptions(
      stepOptions(this.input.options, `fan-out report: ${items.length} workers in ${parts.length} shards`),
      [
        {
          runId: this.input.runId,
          blueprintHash: this.input.blueprintHash,
          stage: this.def.name,
          counts,
          parts: parts.map((p) => p.part),
        },
      ],
    );
    return { content: merged.content, tokens: merged.tokens, isError: failFast && counts.failed > 0, fannedOut: true };
  }

  private async spawn(call: ToolCall, args: Record<string, unknown>): Promise<AgentAnswer> {
    const spawn = readSpawn(this.spawner, args);
    if ('ok' in spawn) return refused(spawn);
    const id = startedId(childRunId(this.input.runId, call.id));
    if (this.children.has(id))
      return refused({ ok: false, code: 'bad-argument', message: `agent ${id} was already started by this call.` });
    const child = startWorker(
      this.spec(spawn.target),
      id,
      spawn.task,
      {
        ...(spawn.seedContext ? { seedContext: spawn.seedContext } : {}),
        ...(spawn.output ? { output: spawn.output } : {}),
      },
      this.ended,
    );
    this.children.set(id, child);
    if (!spawn.wait) return { content: startedText(id, spawn.target.label), isError: false };
    return this.answerOf(child, await child.done);
  }

  /** The child's answer as a tool result, cut to what the routing target holds. */
  private async answerOf(child: Child, end: WorkerEnd): Promise<AgentAnswer> {
    if (end.status !== 'completed') return { content: agentFailedText(child.id, end), isError: true };
    const cut = await activities.cutText.executeWithOptions(
      callOptions(this.input.options, `agent answer: ${child.id}`),
      [
        {
          runId: this.input.runId,
          content: end.output,
          target: resultRoom(this.driver.state, this.def.toolRouting, 'spawn_agent'),
          marker: `the answer is longer than the room for it; agent ${child.id}'s run holds all of it`,
          encoding: stageEncoding(this.input.blueprint, this.def.name),
        },
      ],
    );
    return { content: cut.content, tokens: cut.tokens, isError: false };
  }

  private known(tool: string, args: Record<string, unknown>, withMessage = false): Child | AgentAnswer {
    const asked = readAgentId(tool, args, withMessage);
    if ('ok' in asked) return refused(asked);
    const child = this.children.get(asked.id);
    if (!child) {
      return refused({
        ok: false,
        code: 'agent-not-found',
        message: agentNotFoundMessage(asked.id, [...this.children.keys()]),
      });
    }
    return child;
  }

  private async check(args: Record<string, unknown>): Promise<AgentAnswer> {
    const child = this.known('check_agent', args);
    if (!('scope' in child)) return child;
    if (!child.end) return { content: runningText(child.id), isError: false };
    return this.answerOf(child, child.end);
  }

  private async waitFor(args: Record<string, unknown>): Promise<AgentAnswer> {
    const child = this.known('wait_for_agent', args);
    if (!('scope' in child)) return child;
    return this.answerOf(child, await child.done);
  }

  private async kill(args: Record<string, unknown>): Promise<AgentAnswer> {
    const child = this.known('kill_agent', args);
    if (!('scope' in child)) return child;
    if (!child.end) {
      child.stopped = true;
      child.scope.cancel();
    }
    const end = await child.done;
    return { content: killedText(child.id, end.status), isError: false };
  }

  private async send(args: Record<string, unknown>): Promise<AgentAnswer> {
    const child = this.known('send_to_agent', args, true);
    if (!('scope' in child)) return child;
    if (child.end) return { content: alreadyEndedText(child.id, child.end.status), isError: true };
    try {
      await activities.sendToAgent.executeWithOptions(stepOptions(this.input.options, `message to ${child.id}`), [
        { id: child.id, message: String(args.message) },
      ]);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      return { content: sendFailedText(err.cause?.message ?? err.message), isError: true };
    }
    return { content: sentText(child.id), isError: false };
  }
}

function refused(r: ToolRefusal): AgentAnswer {
  return { content: toolRefusalText(r), isError: true };
}
