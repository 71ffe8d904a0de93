/**
 * The steps of an agent run (`agent-run.ts` sequences them): seeding,
 * entering a stage, one child workflow per visit, the edge choice, the
 * completion checks, and the result. Every decision between them comes from
 * `src/runtime/visit.ts`. Workflow code: the order of activities, children
 * and operations here is what recorded histories replay.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  executeChild,
  isCancellation,
  log,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { type Content, contentText, createRunState } from '../../src/context/index.js';
import { isRuntimeCode } from '../../src/error-codes.js';
import type { RuntimeCode } from '../../src/errors.js';
import { EventLog } from '../../src/runtime/event-log.js';
import type { Continuing, SeededRegion, StageInput } from '../../src/runtime/index.js';
import {
  addSpend,
  type ChildRunResult,
  eachStageSeeds,
  emptyUsage,
  failureCause,
  freshFacts,
  type Progress,
  progressOf,
  type RunCarry,
  type RunInput,
  type RunResult,
  regionBars,
  runBudget,
  runCost,
  runDetails,
  type Spend,
  STAGE_KEY,
  STATUS_KEY,
  type StageOutcome,
  seedContextTarget,
  seedRequest,
  stageFailedText,
  textWrite,
  undeliveredText,
  usageView,
  withLiveVisit,
  withVisitProgress,
} from '../../src/runtime/index.js';
import { gateChecked, stageEntered, stageLeft } from '../../src/runtime/stream-events.js';
import type { Blueprint, EdgeDef, StageDef } from '../../src/shapes/frozen-blueprint.js';
import type { PermissionLayer } from '../../src/tools/permissions.js';
import { activities, quickOptions, toolOptions } from '../activities.js';
import { startedId } from '../child-ids.js';
import { currentDetails } from '../current-details.js';
import { EngineDriver } from '../engine-driver.js';
import { onToolWorker, type ToolWorkerWatch, toolWorkerGone } from '../tool-worker-watch.js';
import { stageWorkflow } from '../visit/stage.js';
import { visitHere, visitRouted } from './child-visits.js';
import { RunBook } from './run-book.js';
import { RunOperators } from './run-operators.js';
import { completionHook, errorHook } from './terminal-hooks.js';

/** How a visit the run goes on from ended. */
export class AgentRun {
  readonly runId = workflowInfo().workflowId;
  readonly driver: EngineDriver;
  /** People in the loop: the updates, the held messages and the pause, `LeviathStatus`. */
  readonly operators: RunOperators;
  /** Usage, counters, facts and the answer, across visits and continue-as-new. */
  readonly book = new RunBook();
  /** The workflow of the live visit, when it has one of its own to query. */
  childId: string | undefined;
  /** Visits so far; the next visit's workflow id counts on from it. */
  visits = 0;
  /** The failure of the last visit that ended in error, kept as the cause of the run's. */
  lastFailure: unknown;
  /** Its patience with the workdir's tool worker, for its seeds (`TOOL_WORKER_PATIENCE`). */
  toolWatch: ToolWorkerWatch | undefined;
  /** What a fan-out worker's visits inside it take, as it asked when it started (`ASKING_TOOLS_NO_MCP_DISCOVERY`, `RUN_PATCHES_AT_ONCE`, `LOCAL_INFERENCE`). */
  askingToolsNotMcp = false;
  syncOps = false;
  localInference = false;
  /** The run asked `TERMINAL_HOOKS`: it runs `on_completion` or `on_error` as it ends. */
  terminalHooks = false;
  /** The run's event stream, which the visits inside it write too (docs/reference/events.md). */
  events = new EventLog();

  constructor(
    readonly input: RunInput,
    readonly bp: Blueprint,
    readonly blueprintHash: string,
    /** The run started with `RUN_PATCH`, so it takes people's updates. */
    readonly steerable: boolean,
    /** A sub-agent's ancestors' permissions, for the tools its visits answer themselves. */
    private readonly ceilings?: PermissionLayer[],
    /** A fan-out worker started with `INLINE_WORKER`: its visits run inside it (`inline-visit.ts`). */
    private readonly inline = false,
    /** The run started with `RUN_CONTINUES_AS_NEW` (and how: `RUN_UPGRADES_ON_CONTINUE`), when its history is long. */
    readonly continues: Continuing = false,
    /** A fan-out worker started with `PROVIDER_PATIENCE`: its visits inside it wait out provider outages. */
    readonly patient = false,
  ) {
    this.driver = new EngineDriver(
      {
        runId: this.runId,
        blueprintHash,
        bp: this.bp,
        options: input.options,
        log: (line) => log.info(line),
        events: (event) => this.events.append(event),
      },
      { state: createRunState(this.bp), snapshot: null, ops: [] },
    );
    this.operators = new RunOperators(() => this.showDetails());
  }

  /** The run's progress: its finished visits, with the live visit's own progress (inside the run) or its last report. */
  progress(): Progress {
    const hosted = this.operators.hostedProgress();
    return hosted
      ? withVisitProgress(this.ownProgress(), hosted)
      : withLiveVisit(this.ownProgress(), this.operators.liveCounters());
  }

  private ownProgress(): Progress {
    return progressOf(this.driver.state, {
      runId: this.runId,
      stage: this.driver.state.stage,
      inferences: this.book.inferences,
      visitTurns: this.book.visitTurns,
      ...this.spent(),
      recentCalls: [],
      ...this.operators.progress(),
      ...(this.childId ? { stageWorkflowId: this.childId } : {}),
    });
  }

  /** The run's own model calls priced at its stages' models, plus what its sub-agents spent. */
  spent(): Spend {
    return addSpend({ usage: this.book.usage, cost: runCost(this.bp, this.book.perStage) }, this.book.agents);
  }

  /** Rewrites the run's current details (docs/reference/operators.md#current-details) once the activation's microtasks have run; adds no event. */
  readonly showDetails = currentDetails(() => runDetails(this.progress(), this.book.stagesVisited));

  /** The memo the Web UI lists once the run has ended (docs/reference/operators.md#memo). */
  private memo(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const state = this.driver.state;
    return {
      status: this.operators.status,
      gatesForced: state.gatesForced,
      requiredRegionsAbandoned: state.requiredRegionsAbandoned,
      stages: this.book.stagesVisited,
      diagnostics: state.diagnostics.slice(-50),
      seedWarnings: this.book.seedWarnings,
      usage: usageView(this.spent(), this.book.perStage, this.book.agents),
      cost: this.spent().cost,
      inferences: this.book.inferences,
      ...this.undelivered(),
      ...extra,
    };
  }

  /** Messages the run ends holding, which nobody read (docs/reference/operators.md#accepts_messages). */
  private undelivered(): { undeliveredMessages?: number } {
    const count = this.steerable ? this.operators.undelivered() : 0;
    return count > 0 ? { undeliveredMessages: count } : {};
  }

  /** The run's result (reading a blob output back as text), with the memo the Web UI lists. */
  async result(status: RunResult['status'], final: Content, error?: string): Promise<RunResult | ChildRunResult> {
    const state = this.driver.state;
    const answer = this.book.answer;
    this.operators.finish(status);
    this.endStream(status);
    const { undeliveredMessages } = this.undelivered();
    if (undeliveredMessages)
      await this.driver.apply({
        kind: 'diagnostic',
        code: 'messages-undelivered',
        severity: 'warning',
        detail: undeliveredText(undeliveredMessages),
      });
    const output = answer?.content ?? final;
    if (this.input.child) return this.childResult(status, output, error);
    const text =
      typeof output === 'string'
        ? output
        : await activities.readText.executeWithOptions(quickOptions('final output'), [output]);
    upsertSearchAttributes([{ key: STATUS_KEY, value: status }]);
    upsertMemo(
      this.memo(answer ? { output: { format: answer.format, stage: answer.stage, text: text.slice(0, 4000) } } : {}),
    );
    return {
      runId: this.runId,
      status,
      output: text,
      ...(answer ? { outputFormat: answer.format } : {}),
      ...(answer?.artifacts?.length ? { artifacts: answer.artifacts } : {}),
      ...(error ? { error } : {}),
      ...this.undelivered(),
      regions: regionBars(state),
      gatesForced: state.gatesForced,
      usage: usageView(this.spent(), this.book.perStage, this.book.agents),
      cost: this.spent().cost,
      stages: this.book.stagesVisited,
      diagnostics: state.diagnostics,
    };
  }

  /**
   * A sub-agent's result travels through its parent's history, so it is
   * small: a large answer stays a blob reference, and the region bars and
   * diagnostics stay in its memo and `progress` query
   * (docs/reference/sub-agents.md#what-a-worker-hands-back).
   */
  private childResult(status: RunResult['status'], output: Content, error?: string): ChildRunResult {
    const answer = this.book.answer;
    const start = this.bp.stages.find((s) => s.name === (this.input.child?.stage ?? this.bp.agent.entryStage));
    upsertSearchAttributes([{ key: STATUS_KEY, value: status }]);
    upsertMemo(
      this.memo(answer ? { output: { format: answer.format, stage: answer.stage, text: contentText(output) } } : {}),
    );
    const { usage, cost } = this.spent();
    return {
      status,
      output: contentText(output),
      ...(typeof output === 'string' ? {} : { outputRef: output }),
      ...(answer ? { outputFormat: answer.format } : {}),
      ...(answer?.artifacts?.length ? { artifacts: answer.artifacts } : {}),
      ...(start?.requireOutput && !answer ? { outputMissing: true } : {}),
      ...(error ? { error } : {}),
      ...this.undelivered(),
      usage,
      cost,
      stages: this.book.stagesVisited,
    };
  }

  /** The stream's last event: nothing follows it. */
  private endStream(status: string): void {
    this.events.append({ kind: 'run-ended', time: Date.now(), status });
    this.events.close();
  }

  async complete(output: Content): Promise<RunResult | ChildRunResult> {
    const hooked = this.terminalHooks ? await completionHook(this, output) : { output };
    // One terminal hook per run: a refused completion fails without asking on_error.
    this.terminalHooks = false;
    if ('failed' in hooked) return this.fail('stage-hook-failed', hooked.failed);
    return this.result('completed', hooked.output);
  }

  /** Ends the run as failed: the code is the failure's type, the partial result its details, a visit's failure its cause. */
  async fail(failure: RuntimeCode, error: string, cause?: unknown): Promise<never> {
    const { code, message } = this.terminalHooks ? errorHook(this, failure, error) : { code: failure, message: error };
    const partial = await this.result('failed', '', message);
    throw ApplicationFailure.create({
      message,
      type: code,
      nonRetryable: true,
      details: [partial],
      ...(cause instanceof Error ? { cause } : {}),
    });
  }

  /** The run was cancelled: it keeps the region set it has, says so in its status and memo, and ends CANCELED. */
  async cancelled(): Promise<void> {
    if (!this.steerable) return;
    this.operators.finish('cancelled');
    this.endStream('cancelled');
    upsertSearchAttributes([{ key: STATUS_KEY, value: 'cancelled' }]);
    upsertMemo(this.memo());
  }

  /** Seeds every region, or only `regions` on a refresh: with the seeds a fan-out worker's start resolved, else `resolveSeeds`. */
  async seed(regions?: string[], resolved?: SeededRegion[]): Promise<void> {
    const seeded = resolved ?? (await this.resolveSeeds(regions));
    for (const s of seeded) {
      this.book.seedWarnings.push(...s.warnings);
      if (regions && s.texts.length === 0) continue;
      await this.driver.apply({ kind: 'seed', region: s.region, texts: s.texts, replaceSeeded: regions !== undefined });
    }
  }

  private async resolveSeeds(regions?: string[]): Promise<SeededRegion[]> {
    const { input, driver } = this;
    const request = seedRequest(this.blueprintHash, input, driver.stage, regions);
    const summary = regions ? `seeds: refresh ${regions.join(', ')}` : 'seeds';
    try {
      return await onToolWorker(this.toolWatch, toolOptions(input.options, summary), (options) =>
        activities.resolveSeeds.executeWithOptions(options, [request]),
      );
    } catch (err) {
      // Given up on for want of a tool worker, the run fails `tool-worker-missing` (its failure's type).
      if ((err instanceof ActivityFailure || toolWorkerGone(err) !== undefined) && !isCancellation(err)) {
        const cause = failureCause(err, 'seed-failed');
        return this.fail(cause.code, cause.message);
      }
      throw err;
    }
  }

  /** `spawn_agent {seed_context}`: starting material in the first pinned region the run shows, else the conversation. */
  async addSeedContext(text: string): Promise<void> {
    const target = seedContextTarget(this.driver.state);
    await this.driver.apply(textWrite(target, text, await this.driver.count(text), true));
  }

  async enter(stage: string): Promise<void> {
    const entered = await this.driver.apply({ kind: 'enterStage', stage });
    if (!entered.ok) await this.fail(entered.code, entered.message);
    this.book.stagesVisited.push(stage);
    this.events.append(stageEntered(stage, this.book.stagesVisited.length, Date.now()));
    this.book.visitTurns = 0;
    this.book.facts = freshFacts(Date.now());
    upsertSearchAttributes([{ key: STAGE_KEY, value: stage }]);
  }

  /** The definition of the current stage. */
  def(): StageDef {
    const stage = this.driver.stage;
    const def = this.bp.stages.find((s) => s.name === stage);
    if (!def)
      throw ApplicationFailure.nonRetryable(`no stage "${stage}" in blueprint ${this.bp.agent.name}`, 'unknown-stage');
    return def;
  }

  /** One visit of the current stage, as a child workflow or inside the run; takes over the region set it hands back. */
  async visit(): Promise<StageOutcome> {
    const stage = this.driver.stage;
    // The visit the previous run handed over goes on under its own workflow id.
    const handed = this.book.handedOver;
    this.book.handedOver = undefined;
    const visitId = startedId(`${this.runId}.${handed ? this.visits : ++this.visits}.${stage}`);
    // A visit inside the run has no workflow of its own to query until it goes on as one.
    this.childId = this.inline ? undefined : visitId;
    const input: StageInput = {
      runId: this.runId,
      blueprintHash: this.blueprintHash,
      blueprint: this.bp,
      stage,
      carried: this.driver.carried(),
      workdir: this.input.workdir,
      options: this.input.options,
      inferences: this.book.inferences,
      visitTurns: this.book.visitTurns,
      facts: this.book.facts,
      usage: emptyUsage(),
      ...(runBudget(this.bp) ? { spentBefore: this.spent() } : {}),
      ...(this.input.child ? { lineage: this.input.child.lineage } : {}),
      ...(this.ceilings?.length ? { ceilings: this.ceilings } : {}),
    };
    let outcome: StageOutcome;
    if (handed) outcome = await visitRouted(this, stage, visitId, handed);
    else if (this.inline) outcome = await visitHere(this, stage, visitId, input);
    else if (this.steerable) outcome = await visitRouted(this, stage, visitId, input);
    else {
      // A run of this version never asks its visit to hand over.
      try {
        outcome = (await executeChild(stageWorkflow, { workflowId: visitId, args: [input] })) as StageOutcome;
      } catch (err) {
        const cause = failureCause(err, 'stage-failed');
        return this.fail('stage-failed', stageFailedText(stage, cause));
      }
    }
    this.take(stage, outcome);
    // A visit returns `cancelled` only when a checkpoint aborted the run; a cancelled visit's report is thrown on.
    return outcome;
  }

  /** What the next run of the workflow picks the walk up from (docs/reference/long-runs.md#the-run-continues-as-new). */
  carry(visit?: StageInput): RunCarry {
    // Between visits; a visit that hands over wrote its own `continued` (the run's stream is its then).
    this.events.append({ kind: 'continued', workflow: 'run', time: Date.now() });
    return {
      blueprint: this.bp,
      blueprintHash: this.blueprintHash,
      ...(this.ceilings?.length ? { ceilings: this.ceilings } : {}),
      carried: this.driver.carried(),
      visits: this.visits,
      ...this.book.carried(),
      ...this.operators.handOver(),
      ...(visit ? { visit } : {}),
      events: this.events.carry(),
    };
  }

  /** Picks the walk up where the previous run left it (`src/runtime/continuation.ts`). */
  resumeFrom(carry: RunCarry): void {
    this.driver.adopt(carry.carried);
    this.visits = carry.visits;
    this.events = new EventLog(carry.events);
    this.book.resume(carry);
    this.operators.restore(carry.operators, carry.stuck);
  }

  /** Takes over what a visit hands back: the region set, the counters, the usage. */
  take(stage: string, outcome: StageOutcome): void {
    this.events.takeBack(outcome.events);
    this.events.append(
      stageLeft(stage, this.book.stagesVisited.length, outcome.end, Date.now(), {
        // The turns of this call of the visit: a gate's re-run and a hand-over keep counting the visit's.
        turns: Math.max(0, outcome.visitTurns - this.book.visitTurns),
        usage: outcome.usage,
        cost: runCost(this.bp, { [stage]: outcome.usage }).usd,
      }),
    );
    this.driver.adopt(outcome.carried);
    this.book.inferences = outcome.inferences;
    this.book.visitTurns = outcome.visitTurns;
    this.book.facts = outcome.facts;
    this.book.answer = outcome.facts.output ?? this.book.answer;
    this.book.addUsage(stage, outcome.usage);
    if (outcome.agents) this.book.agents = addSpend(this.book.agents, outcome.agents);
  }

  /** The code a visit's error fails the run with, when its stage has no `error` edge. */
  errorCode(outcome: StageOutcome): RuntimeCode | undefined {
    return outcome.errorCode && isRuntimeCode(outcome.errorCode) ? outcome.errorCode : undefined;
  }

  /** The completion checks of the edge (or of ending the run); false when they block and the stage runs again. */
  async checksPass(edge: EdgeDef | null): Promise<boolean> {
    const { modifyingCallSucceeded, modifyingCallDenied } = this.book.facts;
    const gate = await this.driver.apply({
      kind: 'gate',
      fromStage: this.driver.stage,
      target: edge?.target ?? null,
      facts: { modifyingCallSucceeded, modifyingCallDenied },
    });
    this.events.append(gateChecked(this.driver.stage, edge?.target ?? null, gate, Date.now()));
    return gate.outcome !== 'block';
  }

  /** Follows the edge: its transform, the next stage, then the seeds that refresh on each stage entry. */
  async follow(edge: EdgeDef): Promise<void> {
    await this.driver.apply({ kind: 'transform', from: this.driver.stage, target: edge.target });
    await this.enter(edge.target);
    const refresh = eachStageSeeds(this.driver.state);
    if (refresh.length > 0) await this.seed(refresh);
  }
}
