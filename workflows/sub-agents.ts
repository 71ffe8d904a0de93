/**
 * The agent tools of a stage visit (docs/reference/sub-agents.md): each
 * sub-agent is a child `agentRunWorkflow` with id `<run id>/<item id>`, its
 * own region set and its own stage visits. A fan-out starts its workers in
 * item order, at most `max_workers` at once (the rest wait here, in the
 * parent), gathers them as they finish and hands back one merged report from
 * the blob store. Agents started without waiting belong to the visit that
 * started them: it waits for them before it ends. Every decision comes from
 * `src/runtime/sub-agents.ts`; this file only sequences child workflows.
 */
import {
  ActivityFailure,
  CancellationScope,
  condition,
  isCancellation,
  ParentClosePolicy,
  startChild,
} from '@temporalio/workflow';
import type { StageDef } from '../src/blueprint/types.js';
import { findRegion } from '../src/context/index.js';
import { resultCap, routeTarget } from '../src/context/routing.js';
import type { Content, ToolCall } from '../src/context/types.js';
import { formatCoded } from '../src/errors.js';
import {
  agentFailedText,
  type ChildRun,
  childLineage,
  childRunId,
  FanOutQueue,
  failureCause,
  itemShare,
  type Lineage,
  type ReportItem,
  type RunInput,
  type RunResult,
  readAgentId,
  readFanOut,
  readSpawn,
  runningText,
  type Spawner,
  type StageInput,
  startedText,
  type ToolRefusal,
  toolRefusalText,
  topLineage,
  type WorkerCounts,
  type WorkerEnd,
  type WorkerTarget,
} from '../src/runtime/index.js';
import { FAN_OUT } from '../src/tools/names.js';
import { acts, callOptions, type EngineDriver, stageEncoding } from './engine-driver.js';

/** A tool result of an agent tool, before it is routed; tokens are absent when the visit counts the inline text. */
export interface AgentAnswer {
  content: Content;
  tokens?: number;
  isError: boolean;
  /** A `fan_out` call whose workers ran (even none): what a fan-out stage owes. */
  fannedOut?: boolean;
}

/** One child run this visit started. */
interface Child {
  id: string;
  label: string;
  scope: CancellationScope;
  /** Resolves once the child has ended, however it ended; set on `end` too. */
  done: Promise<WorkerEnd>;
  end?: WorkerEnd;
  /** This visit asked it to stop (kill_agent, or a failed fail-fast fan-out). */
  stopped?: boolean;
}

const MISSING_OUTPUT = 'the worker finished without the final output its stage requires (require_output)';

/** How a child's result reads: its answer, or why it has none (`answerOwed`: the fan-out stage requires an answer). */
function endOf(result: RunResult, answerOwed: boolean): WorkerEnd {
  if (result.outputMissing || (answerOwed && result.outputFormat === undefined))
    return { status: 'failed', error: MISSING_OUTPUT };
  return { status: 'completed', output: result.outputRef ?? result.output };
}

export class SubAgents {
  private readonly children = new Map<string, Child>();
  private fan: FanOutQueue | undefined;

  constructor(
    private readonly input: StageInput,
    private readonly def: StageDef,
    private readonly driver: EngineDriver,
    /** Called whenever a child starts or ends, so the visit's details show the counts. */
    private readonly changed: () => void = () => {},
  ) {}

  private get lineage(): Lineage {
    return this.input.lineage ?? topLineage(this.input.blueprint);
  }

  private get spawner(): Spawner {
    return { bp: this.input.blueprint, blueprintHash: this.input.blueprintHash, lineage: this.lineage };
  }

  /** Workers of the fan-out in flight plus agents still running, for the visit's progress. */
  counts(): WorkerCounts | undefined {
    const running = [...this.children.values()].filter((c) => !c.end).length;
    const fan = this.fan?.counts();
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

  /** Starts one child run of `target` with `task`; its `done` never rejects unless this visit is cancelled. */
  private start(id: string, target: WorkerTarget, task: string, extra: Partial<ChildRun> = {}, owed = false): Child {
    const child: ChildRun = {
      parentRunId: this.input.runId,
      ...('agent' in target.blueprint ? { agent: target.blueprint.agent } : {}),
      ...(target.stage ? { stage: target.stage } : {}),
      lineage: childLineage(this.lineage, this.input.blueprintHash, this.def.name),
      ...extra,
    };
    const args: RunInput = {
      child,
      task,
      caller: {},
      workdir: this.input.workdir,
      options: this.input.options,
    };
    const scope = new CancellationScope();
    const record: Child = { id, label: target.label, scope, done: Promise.resolve({ status: 'failed', error: '' }) };
    record.done = scope
      .run(async () => {
        const handle = await startChild('agentRunWorkflow', {
          workflowId: id,
          args: [args],
          // Cancelling or ending the parent asks its workers to stop, and lets them stop cleanly.
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          staticSummary: `${target.label}: ${task.slice(0, 80)}`,
        });
        return (await handle.result()) as RunResult;
      })
      .then(
        (result) => endOf(result, owed),
        (err: unknown): WorkerEnd => {
          const message = failureCause(err, 'stage-failed').message;
          if (record.stopped || isCancellation(err)) return { status: 'cancelled', error: message || 'cancelled' };
          return { status: 'failed', error: message };
        },
      )
      .then((end) => {
        record.end = end;
        this.changed();
        return end;
      });
    this.changed();
    return record;
  }

  private async fanOut(args: Record<string, unknown>, alone: boolean): Promise<AgentAnswer> {
    if (!alone)
      return refused({
        ok: false,
        code: 'fan-out-not-alone',
        message:
          'fan_out waits for all its workers, so it must be the only tool call of its turn; the other calls ran. Call fan_out again on its own, with every item in that one call.',
      });
    const call = readFanOut(this.spawner, this.def, args);
    if ('ok' in call) return refused(call);
    const { items, target } = call;
    const limit = this.def.fanOut?.maxWorkers ?? 0;
    const failFast = this.def.fanOut?.onWorkerFailure === 'fail';
    const queue = new FanOutQueue(items.length, limit, failFast);
    this.fan = queue;
    const running = new Map<number, Child>();
    const ends: (WorkerEnd | undefined)[] = [];
    try {
      while (!queue.settled) {
        for (const i of queue.startable()) {
          const item = items[i];
          if (!item) continue;
          const child = this.start(
            childRunId(this.input.runId, item.id),
            target,
            item.task,
            {},
            this.def.fanOut?.requireOutput === true,
          );
          running.set(i, child);
          void child.done.then((end) => {
            ends[i] = end;
            running.delete(i);
            for (const j of queue.finish(i, end.status)) {
              const other = running.get(j);
              if (other) {
                other.stopped = true;
                other.scope.cancel();
              }
            }
            this.changed();
          });
        }
        await condition(() => queue.settled || queue.wantsStart);
      }
    } finally {
      this.fan = undefined;
    }
    const report: ReportItem[] = items.map((item, i) => {
      const end = ends[i];
      if (!end) return { id: item.id, status: 'not-started', text: 'not started: an earlier worker failed' };
      return { id: item.id, status: end.status, text: end.status === 'completed' ? end.output : end.error };
    });
    const failed = report.find((r) => r.status === 'failed');
    const merged = await acts.fanOutReport.executeWithOptions(
      callOptions(this.input.options, `fan-out report: ${items.length} workers`, 3),
      [
        {
          runId: this.input.runId,
          blueprintHash: this.input.blueprintHash,
          stage: this.def.name,
          items: report.map(withoutPreview),
          share: itemShare(this.reportRoom(), items.length),
        },
      ],
    );
    return {
      content: merged.content,
      tokens: merged.tokens,
      isError: failFast && failed !== undefined,
      fannedOut: true,
    };
  }

  /** The tokens the merged report may take: the room of the region it is routed to, or the tool's cap. */
  private reportRoom(): number {
    const routing = this.def.toolRouting;
    const region = findRegion(this.driver.state, routeTarget(this.driver.state, routing, FAN_OUT));
    const cap = resultCap(routing, FAN_OUT);
    const budget = region?.budget ?? 4000;
    return Math.max(64, Math.min(budget, cap ?? budget) - 64);
  }

  private async spawn(call: ToolCall, args: Record<string, unknown>): Promise<AgentAnswer> {
    const spawn = readSpawn(this.spawner, args);
    if ('ok' in spawn) return refused(spawn);
    const id = childRunId(this.input.runId, call.id);
    if (this.children.has(id))
      return refused({ ok: false, code: 'bad-argument', message: `agent ${id} was already started by this call.` });
    const child = this.start(id, spawn.target, spawn.task, {
      ...(spawn.seedContext ? { seedContext: spawn.seedContext } : {}),
      ...(spawn.output ? { output: spawn.output } : {}),
    });
    this.children.set(id, child);
    if (!spawn.wait) return { content: startedText(id, spawn.target.label), isError: false };
    return this.answerOf(child, await child.done);
  }

  /** The child's answer as a tool result, cut to what the routing target holds. */
  private async answerOf(child: Child, end: WorkerEnd): Promise<AgentAnswer> {
    if (end.status !== 'completed') return { content: agentFailedText(child.id, end), isError: true };
    const cut = await acts.cutText.executeWithOptions(callOptions(this.input.options, `agent answer: ${child.id}`), [
      {
        runId: this.input.runId,
        content: end.output,
        target: this.answerRoom(),
        marker: `the answer is longer than the room for it; agent ${child.id}'s run holds all of it`,
        encoding: stageEncoding(this.input.blueprint, this.def.name),
      },
    ]);
    return { content: cut.content, tokens: cut.tokens, isError: false };
  }

  private answerRoom(): number {
    const routing = this.def.toolRouting;
    const region = findRegion(this.driver.state, routeTarget(this.driver.state, routing, 'spawn_agent'));
    const cap = resultCap(routing, 'spawn_agent');
    const budget = region?.budget ?? 4000;
    return Math.max(64, Math.min(budget, cap ?? budget));
  }

  private known(tool: string, args: Record<string, unknown>, withMessage = false): Child | AgentAnswer {
    const asked = readAgentId(tool, args, withMessage);
    if ('ok' in asked) return refused(asked);
    const child = this.children.get(asked.id);
    if (!child) {
      const ids = [...this.children.keys()];
      return refused({
        ok: false,
        code: 'agent-not-found',
        message: `this stage visit started no agent ${asked.id}; ${ids.length > 0 ? `its agents: ${ids.join(', ')}` : 'it has started none'}.`,
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
    return {
      content:
        end.status === 'cancelled'
          ? `agent ${child.id} was stopped.`
          : `agent ${child.id} had already ended (${end.status}).`,
      isError: false,
    };
  }

  private async send(args: Record<string, unknown>): Promise<AgentAnswer> {
    const child = this.known('send_to_agent', args, true);
    if (!('scope' in child)) return child;
    if (child.end) return { content: `agent ${child.id} has already ended (${child.end.status}).`, isError: true };
    try {
      await acts.sendToAgent.executeWithOptions(callOptions(this.input.options, `message to ${child.id}`, 3), [
        { id: child.id, message: String(args.message) },
      ]);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      return {
        content: formatCoded('tool-failed', `send_to_agent failed: ${err.cause?.message ?? err.message}`),
        isError: true,
      };
    }
    return { content: `Sent the message to agent ${child.id}.`, isError: false };
  }
}

function refused(r: ToolRefusal): AgentAnswer {
  return { content: toolRefusalText(r), isError: true };
}

/** A report item as the report activity takes it: a blob's preview is not needed there, so it does not go through history twice. */
function withoutPreview(item: ReportItem): ReportItem {
  return typeof item.text === 'string' ? item : { ...item, text: { ...item.text, preview: '' } };
}
