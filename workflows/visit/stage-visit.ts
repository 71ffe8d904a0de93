/**
 * The steps of one stage visit (`stage.ts` sequences them): each step is
 * an activity or an engine operation, and every decision between them comes
 * from `src/runtime/visit.ts`. Workflow code: the order of activities and
 * operations here is what recorded histories replay.
 */
import { allHandlersFinished, CancellationScope, condition, log } from '@temporalio/workflow';
import type { ToolCall } from '../../src/context/index.js';
import type { DiscoveredTools } from '../../src/mcp/tool-names.js';
import type { FoundTools } from '../../src/runtime/activity-types.js';
import { EventLog } from '../../src/runtime/event-log.js';
import type {
  CallEffect,
  InferOutput,
  Patience,
  RecentCall,
  RepetitionWatch,
  SubmittedOutput,
  VisitFacts,
} from '../../src/runtime/index.js';
import {
  addSpend,
  addUsage,
  callSubject,
  countersOf,
  endInference,
  estimateCost,
  modifyingTools,
  noSpend,
  noteTarget,
  type Progress,
  peopleProgress,
  progressOf,
  type RuntimeNote,
  replyOps,
  type Spend,
  type StageInput,
  type StageOutcome,
  type StageReport,
  type StuckLimits,
  stageDetails,
  stuckLimits,
  tallyCall,
  textWrite,
  USER_TURN,
  type VisitCounters,
  visitFailure,
} from '../../src/runtime/index.js';
import type { VisitPatches } from '../../src/runtime/patches.js';
import { afterAnswer, CALM } from '../../src/runtime/provider-patience.js';
import { afterPlainReply, countSent, interactiveReply, missedFanOut } from '../../src/runtime/stage-modes.js';
import { type Steps, wait } from '../../src/runtime/steps.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import { SubAgents } from '../agents/sub-agents.js';
import { currentDetails } from '../current-details.js';
import { EngineDriver } from '../engine-driver.js';
import { type ToolWorkerWatch, toolWatch } from '../tool-worker-watch.js';
import { type CheckpointStop, checkpointStep } from './checkpoints.js';
import { inferTurn, type TurnReply } from './model-turn.js';
import { StageOperators } from './stage-operators.js';

/** The run a visit runs inside (a fan-out worker's, `inline-visit.ts`): it takes the reports and shows the details. */
export interface HostRun {
  /** The run's event stream, which the visit writes (docs/reference/events.md). */
  readonly events: EventLog;
  report(report: StageReport<StageOutcome>): void;
  /** Something a person can see changed: the run rewrites its details, the visit's included. */
  changed(): void;
}

/** Tool calls a visit keeps for its details. */
const RECENT_CALLS = 5;

/**
 * A stage visit: its state and its steps. The mutable fields below are written only by the named
 * transitions at the end of the class; the steps in other files (`model-turn.ts`, `tool-calls.ts`,
 * `checkpoints.ts`, `stage.ts`) read them and call those (`test/folders.test.ts` holds them to it).
 */
export class StageVisit {
  readonly driver: EngineDriver;
  readonly limits: StuckLimits;
  readonly modifying: Set<string>;
  inferences: number;
  visitTurns: number;
  /** Inferences in this workflow run, for the continue-as-new cap. */
  runTurns = 0;
  usage: StageInput['usage'];
  facts: StageInput['facts'];
  finalContent: StageOutcome['finalContent'] = '';
  /** Tokens of the last reply, which a checkpoint writes a stored reply with. */
  finalTokens = 0;
  /** Replies of a person the stage's own `message` signal (of earlier versions) delivered, oldest first. */
  readonly inbox: string[] = [];
  /** Messages, pauses and asks: what people send through the run. */
  readonly operators: StageOperators;
  recentCalls: RecentCall[];
  /** When the last inference of this workflow run ended (`InferOutput.endedAt`), for the progress throttle. */
  lastInferenceEnd: number | null = null;
  /** The sub-agents this visit starts (docs/reference/sub-agents.md). */
  readonly agents: SubAgents;
  /** What the MCP servers offered this visit, asked before its first inference (docs/reference/mcp.md#discovery). */
  reach?: DiscoveredTools;
  /** What the workdir's `tools/` offered the current turn (docs/reference/script-tools.md#tools-a-run-writes). */
  written?: FoundTools;
  /** Its patience with the workdir's tool worker (docs/reference/long-runs.md#tool_worker_patience). */
  readonly toolWatch: ToolWorkerWatch | undefined;
  /** The provider outage it waits out and the chain entries it skips (docs/reference/long-runs.md#provider-outages). */
  patience: Patience;
  /** Its event stream: its own, from where its run handed it over, or its run's when inside it (docs/reference/events.md). */
  readonly events: EventLog;

  constructor(
    readonly input: StageInput,
    readonly def: StageDef,
    /** The paths this run of the visit takes (`src/runtime/patches.ts`). */
    readonly patches: VisitPatches,
    /** The run this visit runs inside; absent in a stage workflow of its own. */
    private readonly host?: HostRun,
  ) {
    this.driver = new EngineDriver(
      {
        runId: input.runId,
        blueprintHash: input.blueprintHash,
        bp: input.blueprint,
        options: input.options,
        log: (line) => log.info(line),
        events: (event) => this.events.append(event),
        syncOps: patches.syncOps === true,
      },
      input.carried,
    );
    ({ inferences: this.inferences, visitTurns: this.visitTurns, usage: this.usage } = input);
    this.facts = { ...input.facts, editsPerPath: { ...input.facts.editsPerPath } };
    this.limits = stuckLimits(def);
    this.modifying = modifyingTools(def);
    this.recentCalls = [...(input.recentCalls ?? [])];
    this.patience = input.patience ?? CALM;
    this.events = host?.events ?? new EventLog(input.events);
    this.operators = new StageOperators(
      {
        runId: input.runId,
        stage: def.name,
        acceptsMessages: def.acceptsMessages !== false,
        counters: () => ({ inferences: this.inferences, visitTurns: this.visitTurns }),
        live: () => this.liveCounters(),
        lastInferenceEnd: () => this.lastInferenceEnd,
        changed: () => this.showDetails(),
        events: this.events,
        ...(host ? { report: (report: StageReport<StageOutcome>) => host.report(report) } : {}),
        ...(input.options.progressReportMs !== undefined ? { reportIntervalMs: input.options.progressReportMs } : {}),
      },
      input.operators,
    );
    this.agents = new SubAgents(input, def, this.driver, () => this.showDetails(), patches.handoffs === true);
    this.toolWatch = toolWatch(input, patches.toolPatience, (absence) => this.operators.showToolWorker(absence));
  }

  /** This run of the visit takes people's updates (`STAGE_PATCH`): this version's operator paths. */
  get steerable(): boolean {
    return this.patches.operators;
  }

  get stage(): string {
    return this.def.name;
  }

  progress(): Progress {
    return progressOf(this.driver.state, {
      runId: this.input.runId,
      stage: this.stage,
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      ...this.spent(),
      ...peopleProgress({ ...this.operators.state, provider: this.operators.provider }),
      recentCalls: [...this.recentCalls],
      ...this.workers(),
      ...(this.operators.rejected ? { rejected: this.operators.rejected } : {}),
    });
  }

  /** What the run's own progress shows of this visit (docs/reference/operators.md#the-progress-query). */
  liveCounters(): VisitCounters {
    return countersOf(this.progress(), Date.now());
  }

  /** The visit's own usage and cost plus what its sub-agents spent (docs/reference/sub-agents.md#usage). */
  spent(): Spend {
    const own = {
      usage: this.usage,
      cost: estimateCost([{ model: this.def.model, usage: this.usage }], this.input.blueprint.models),
    };
    return addSpend(own, this.agentSpend());
  }

  /** What the visit's sub-agents spent, before a continue-as-new included. */
  private agentSpend(): Spend {
    return addSpend(this.input.agents ?? noSpend(), this.agents.spent);
  }

  private workers(): { workers?: NonNullable<Progress['workers']> } {
    const workers = this.agents.counts();
    return workers ? { workers } : {};
  }

  /**
   * Rewrites the visit's current details (docs/reference/operators.md#current-details) once the
   * activation's microtasks have run; adds no event. A visit inside its run has the run show them.
   */
  showDetails(): void {
    if (this.host) this.host.changed();
    else this.writeDetails();
  }

  private readonly writeDetails = currentDetails(() => stageDetails(this.progress()));

  outcome(end: StageOutcome['end'], error?: string, errorCode?: string): StageOutcome {
    return {
      end,
      finalContent: this.finalContent,
      ...(error !== undefined ? { error } : {}),
      ...(errorCode !== undefined ? { errorCode } : {}),
      carried: this.driver.carried(),
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      facts: this.facts,
      usage: this.usage,
      ...this.agentsPart(),
      operators: this.operators.carry(),
      ...(this.host ? {} : { events: this.events.handBack() }),
    };
  }

  private agentsPart(): { agents?: Spend } {
    const agents = this.agentSpend();
    return agents.usage.calls > 0 || agents.cost.usd !== null ? { agents } : {};
  }

  /** The visit's outcome once the agents it started have ended and every update it took has been answered. */
  async finish(end: StageOutcome['end'], error?: string): Promise<StageOutcome> {
    await this.agents.settle();
    await condition(allHandlersFinished);
    this.showDetails();
    return this.outcome(end, error);
  }

  /**
   * Ends the visit after an inference failed: the workflow fails with the error's code and the outcome as details,
   * so the run can still take the stage's `error` edge (docs/reference/operators.md#failure); inside its run, as is.
   */
  async endInError(failed: { failed: string; code?: string }): Promise<StageOutcome> {
    await this.agents.settle();
    const outcome = this.outcome('error', failed.failed, failed.code);
    if (!this.steerable) return outcome;
    await condition(allHandlersFinished);
    this.showDetails();
    if (this.host) return outcome;
    throw visitFailure(failed.failed, failed.code, outcome);
  }

  /** A cancelled visit hands its region set to the run, which keeps it (docs/reference/operators.md#cancellation). */
  async reportCancelled(): Promise<void> {
    if (!this.steerable) return;
    await CancellationScope.nonCancellable(() =>
      this.operators.send({ kind: 'cancelled', outcome: this.outcome('cancelled') }),
    );
  }

  /** The input of the next run of this visit after continue-as-new. */
  async continuation(): Promise<StageInput> {
    await condition(allHandlersFinished);
    return {
      ...this.input,
      carried: this.driver.carried(),
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      facts: this.facts,
      usage: this.usage,
      ...this.agentsPart(),
      operators: this.operators.carry(),
      recentCalls: this.recentCalls,
      ...(this.patience.outage || this.patience.detours.length > 0 ? { patience: this.patience } : {}),
    };
  }

  /**
   * The operators' point before an inference: a paused visit waits for
   * `resume` (the stuck clock does not run meanwhile), then the messages
   * people sent are written into the conversation (docs/reference/operators.md#message).
   */
  async beforeInference(): Promise<void> {
    if (await this.operators.holdWhilePaused()) this.facts = { ...this.facts, lastProgressAt: Date.now() };
    for (const text of this.operators.takeMessages()) await this.userTurn(text);
  }

  // The steps of a turn as `src/runtime/steps.ts` runs them (`VISIT_SYNC_STEPS`): each does what its async
  // namesake does, in the same order, and waits only where that one awaited a promise. A visit recorded
  // before the patch awaits its namesakes, whose microtasks its history was recorded with.

  /** `beforeInference` as steps: it waits only while the visit is paused. */
  *beforeInferenceSteps(): Steps<void> {
    if (this.operators.state.paused) {
      yield* wait(this.operators.holdWhilePaused());
      this.facts = { ...this.facts, lastProgressAt: Date.now() };
    }
    for (const text of this.operators.takeMessages()) yield* this.userTurnSteps(text);
  }

  /** `userTurn` as steps. */
  *userTurnSteps(text: string, runtime = false): Steps<void> {
    const tokens = yield* wait(this.driver.count(text));
    yield* wait(this.driver.apply(textWrite(USER_TURN, text, tokens, runtime)));
  }

  /** `maintain` as steps: it waits only for a fold's summary or a cut. */
  *maintainSteps(): Steps<void> {
    this.driver.turn = this.inferences;
    yield* wait(this.driver.apply({ kind: 'maintain' }));
    this.usage = addUsage(this.usage, this.driver.takeSummaryUsage());
    if (!this.patches.bookkeeping) yield* wait(this.driver.compactLog());
  }

  /** `storeReply` as steps. */
  *storeReplySteps(reply: InferOutput): Steps<boolean> {
    for (const op of replyOps(reply)) yield* wait(this.driver.apply(op));
    return this.replyStored(reply);
  }

  /** A note of the runtime's: into its region when the stage shows it, else the conversation (`noteTarget`). */
  async note({ region, text }: RuntimeNote): Promise<void> {
    const target = noteTarget(this.driver.state, region);
    await this.driver.apply(textWrite(target, text, await this.driver.count(text), true));
  }

  /**
   * A user turn of the conversation: the runtime's words (`runtime`: a
   * reminder, a person's reply to a wait), or a person's message and a
   * repetition nudge, written as they came.
   */
  async userTurn(text: string, runtime = false): Promise<void> {
    await this.driver.apply(textWrite(USER_TURN, text, await this.driver.count(text), runtime));
  }

  /**
   * After a reply without tool calls: true when the stage ends; otherwise a stage is nudged to use
   * its tools, an output stage is reminded of its answer, an interactive one waits for a person, or
   * an `interactive_points` one asks its checkpoints, which may end the run.
   */
  async afterPlainReply(): Promise<boolean | CheckpointStop> {
    const step = afterPlainReply(this.def, this.facts, this.patches.nudge);
    if (step.kind === 'end') return true;
    if (step.kind === 'checkpoint') return checkpointStep(this);
    if (step.kind === 'forced') {
      await this.driver.apply({ kind: 'diagnostic', code: 'output-forced', severity: 'warning', detail: step.detail });
      return true;
    }
    if (step.kind === 'fan-out-empty' || step.kind === 'ask-fan-out') {
      this.missFanOut();
      if (step.kind === 'fan-out-empty') {
        await this.fanOutEmpty(step.detail);
        return true;
      }
      await this.userTurn(step.text, true);
      return false;
    }
    this.facts = countSent(this.facts, step);
    if (step.kind === 'wait') await this.operators.awaitReply(() => this.inbox.length > 0, this.steerable);
    const next =
      step.kind === 'wait'
        ? interactiveReply(this.inbox.shift() ?? this.operators.takeFirstMessage() ?? '')
        : { kind: 'continue' as const, text: step.text };
    if (next.kind === 'end') return true;
    await this.userTurn(next.text, true);
    return false;
  }

  /** A fan-out stage that gave up on its `fan_out` call: warned, and noted for the merge stage. */
  async fanOutEmpty(detail: string): Promise<void> {
    await this.driver.apply({ kind: 'diagnostic', code: 'fan-out-empty', severity: 'warning', detail });
    await this.note({ region: 'error_report', text: `[fan-out-empty] ${detail}.` });
  }

  /** The maintenance point before an inference: compaction, the cascade, a snapshot when the log is long. */
  async maintain(): Promise<void> {
    this.driver.turn = this.inferences;
    await this.driver.apply({ kind: 'maintain' });
    this.usage = addUsage(this.usage, this.driver.takeSummaryUsage());
    // Newer runs leave the snapshot to the inference itself.
    if (!this.patches.bookkeeping) await this.driver.compactLog();
  }

  /** One inference: a reply, a failure the visit ends on, or `again` (`model-turn.ts`). */
  infer(): Promise<TurnReply> {
    return inferTurn(this);
  }

  /** Records what the provider reported and stores the assistant turn; true when it called tools. */
  async storeReply(reply: InferOutput): Promise<boolean> {
    for (const op of replyOps(reply)) await this.driver.apply(op);
    return this.replyStored(reply);
  }

  /** The reply is stored: it is the visit's last; true when it called tools. */
  private replyStored(reply: InferOutput): boolean {
    this.finalContent = reply.content;
    this.finalTokens = reply.tokens;
    return reply.toolCalls.length > 0 || reply.invalidToolCalls.length > 0;
  }

  // The transitions the steps in other files move the visit's state by, each named for what happened.

  /** An inference answered: the counters move on and its usage is added. */
  countInference(reply: InferOutput): void {
    this.lastInferenceEnd = reply.endedAt ?? null;
    this.inferences++;
    this.visitTurns++;
    this.runTurns++;
    this.usage = addUsage(this.usage, { calls: 1, ...reply.usage });
  }

  /** A provider answered after an outage or a detour: the stuck clock skips the outage, the chain moves back. */
  providerAnswered(model: string | undefined): void {
    // The stuck clock does not run while a provider is down, as it does not while paused.
    if (this.patience.outage) this.facts = { ...this.facts, lastProgressAt: Date.now() };
    this.patience = afterAnswer(this.patience, model);
  }

  /** Where the visit's patience with its providers stands after a failed inference. */
  keepPatience(patience: Patience): void {
    this.patience = patience;
  }

  /** What the MCP servers offered, asked once per visit. */
  discovered(reach: DiscoveredTools): void {
    this.reach = reach;
  }

  /** Its stage's `on_stage_enter` ran: a continuation before its first inference does not run it again. */
  enteredStage(): void {
    this.facts = { ...this.facts, stageEntered: true };
  }

  /** What the workdir's `tools/` offers the turn about to infer. */
  scanned(found: FoundTools): void {
    this.written = found;
  }

  /** One answered call counted into the stuck facts; true when it made progress. */
  countCall(effect: CallEffect): boolean {
    const tally = tallyCall(this.facts, this.modifying, effect);
    this.facts = tally.facts;
    return tally.progressed;
  }

  /** The inference's calls are answered: the idle count or the progress clock moves. */
  closeInference(progressed: boolean): void {
    this.facts = endInference(this.facts, progressed, Date.now());
  }

  /** A call the details list among the last few. */
  rememberCall(call: Pick<ToolCall, 'name' | 'arguments'>, ok: boolean): void {
    this.recentCalls = [...this.recentCalls, { tool: call.name, subject: callSubject(call), ok }].slice(-RECENT_CALLS);
  }

  /** A valid submission of an `output` stage. */
  keepOutput(output: Omit<SubmittedOutput, 'stage'>): void {
    this.facts = { ...this.facts, output: { ...output, stage: this.stage } };
  }

  /** The stage's `fan_out` ran its workers; `failed` when one of them failed. */
  fanOutRan(failed: string | undefined): void {
    this.facts = { ...this.facts, fanOutDone: true, ...(failed ? { fanOutFailed: failed } : {}) };
  }

  /** A fan-out stage missed its `fan_out` once more; what `missedFanOut` says of it. */
  missFanOut(): ReturnType<typeof missedFanOut> {
    const missed = missedFanOut(this.def, this.facts);
    this.facts = { ...this.facts, ...missed.facts };
    return missed;
  }

  /** Where the repetition watch stands after a turn's calls. */
  keepRepetition(watch: RepetitionWatch): void {
    this.facts = { ...this.facts, repetition: watch };
  }

  /** The checkpoint the stage stands at next; none once every point passed. */
  atCheckpoint(at: VisitFacts['checkpoint']): void {
    const { checkpoint: _left, ...rest } = this.facts;
    this.facts = at ? { ...rest, checkpoint: at } : rest;
  }
}
