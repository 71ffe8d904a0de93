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
  log,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Blueprint, EdgeDef, StageDef } from '../src/blueprint/types.js';
import { type Content, chooseEdge, contentText, createRunState } from '../src/context/index.js';
import { formatCoded, type RuntimeCode } from '../src/errors.js';
import type { CeilingLayer, SeededRegion } from '../src/runtime/index.js';
import {
  addUsage,
  choiceText,
  type Departure,
  eachStageSeeds,
  emptyUsage,
  failureCause,
  freshFacts,
  type Progress,
  progressOf,
  type RunInput,
  type RunResult,
  regionBars,
  STAGE_KEY,
  STATUS_KEY,
  type StageOutcome,
  seedContextTarget,
  type UsageTotals,
  unmatchedChoiceDetail,
} from '../src/runtime/index.js';
import type { SubmittedOutput } from '../src/runtime/stage-modes.js';
import { onToolQueue } from '../src/runtime/tool-queue.js';
import { acts, callOptions, EngineDriver } from './engine-driver.js';
import { stageWorkflow } from './stage.js';

export class AgentRun {
  readonly runId = workflowInfo().workflowId;
  readonly bp: Blueprint;
  readonly driver: EngineDriver;
  status: RunResult['status'] = 'running';
  private usage = emptyUsage();
  private readonly perStage: Record<string, UsageTotals> = {};
  private readonly stagesVisited: string[] = [];
  private readonly seedWarnings: string[] = [];
  private inferences = 0;
  private visitTurns = 0;
  private facts = freshFacts(Date.now());
  private childId: string | undefined;
  private visits = 0;
  /** The last answer a `submit_output` call gave, which becomes the run's output. */
  private answer: SubmittedOutput | undefined;

  constructor(
    readonly input: RunInput,
    bp: Blueprint,
    readonly blueprintHash: string,
  ) {
    this.bp = bp;
    this.driver = new EngineDriver(
      { runId: this.runId, blueprintHash, bp: this.bp, options: input.options, log: (line) => log.info(line) },
      { state: createRunState(this.bp), snapshot: null, ops: [] },
    );
  }

  progress(): Progress {
    return progressOf(this.driver.state, {
      runId: this.runId,
      status: this.status,
      stage: this.driver.state.stage,
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      usage: this.usage,
      ...(this.childId ? { stageWorkflowId: this.childId } : {}),
    });
  }

  /** The run's result (reading a blob output back as text), with the memo the Web UI lists. */
  async result(final: Content, error?: string): Promise<RunResult> {
    const state = this.driver.state;
    const answer = this.answer;
    const output = answer?.content ?? final;
    if (this.input.child) return this.childResult(output, error);
    const text =
      typeof output === 'string'
        ? output
        : await acts.readText.executeWithOptions({ startToCloseTimeout: '1 minute', summary: 'final output' }, [
            output,
          ]);
    upsertSearchAttributes([{ key: STATUS_KEY, value: this.status }]);
    upsertMemo({
      gatesForced: state.gatesForced,
      requiredRegionsAbandoned: state.requiredRegionsAbandoned,
      stages: this.stagesVisited,
      diagnostics: state.diagnostics.slice(-50),
      seedWarnings: this.seedWarnings,
      usage: { ...this.usage, perStage: this.perStage },
      ...(answer ? { output: { format: answer.format, stage: answer.stage, text: text.slice(0, 4000) } } : {}),
    });
    return {
      runId: this.runId,
      status: this.status,
      output: text,
      ...(answer ? { outputFormat: answer.format } : {}),
      ...(error ? { error } : {}),
      regions: regionBars(state),
      gatesForced: state.gatesForced,
      usage: { ...this.usage, perStage: this.perStage },
      stages: this.stagesVisited,
      diagnostics: state.diagnostics,
    };
  }

  /**
   * A sub-agent's result travels through its parent's history, so it is
   * small: a large answer stays a blob reference, and the region bars and
   * diagnostics stay in its memo and `progress` query
   * (docs/reference/sub-agents.md#what-a-worker-hands-back).
   */
  private childResult(output: Content, error?: string): RunResult {
    const state = this.driver.state;
    const answer = this.answer;
    const start = this.bp.stages.find((s) => s.name === (this.input.child?.stage ?? this.bp.agent.entryStage));
    upsertSearchAttributes([{ key: STATUS_KEY, value: this.status }]);
    upsertMemo({
      gatesForced: state.gatesForced,
      stages: this.stagesVisited,
      diagnostics: state.diagnostics.slice(-50),
      seedWarnings: this.seedWarnings,
      usage: this.usage,
      ...(answer ? { output: { format: answer.format, stage: answer.stage, text: contentText(output) } } : {}),
    });
    return {
      runId: this.runId,
      status: this.status,
      output: contentText(output),
      ...(typeof output === 'string' ? {} : { outputRef: output }),
      ...(answer ? { outputFormat: answer.format } : {}),
      ...(start?.requireOutput && !answer ? { outputMissing: true } : {}),
      ...(error ? { error } : {}),
      regions: [],
      gatesForced: state.gatesForced,
      usage: { ...this.usage, perStage: {} },
      stages: this.stagesVisited,
      diagnostics: [],
    };
  }

  async complete(output: Content): Promise<RunResult> {
    this.status = 'completed';
    return this.result(output);
  }

  /** Ends the run as failed: the partial result travels as the failure's details. */
  async fail(code: RuntimeCode, message: string): Promise<never> {
    this.status = 'failed';
    const partial = await this.result('', message);
    throw ApplicationFailure.nonRetryable(message, code, partial);
  }

  /** Resolves the seeds of every region, or only of `regions` on a refresh. */
  async seed(regions?: string[]): Promise<void> {
    const { input, driver } = this;
    let seeded: SeededRegion[];
    try {
      seeded = await acts.resolveSeeds.executeWithOptions(
        onToolQueue(
          input.options,
          callOptions(input.options, regions ? `seeds: refresh ${regions.join(', ')}` : 'seeds', 3),
        ),
        [
          {
            blueprintHash: this.blueprintHash,
            ...(input.task !== undefined ? { task: input.task } : {}),
            caller: input.caller,
            workdir: input.workdir,
            noSeedCommands: input.options.noSeedCommands,
            stage: driver.stage,
            ...(regions ? { regions } : {}),
            ...this.ceiling(),
          },
        ],
      );
    } catch (err) {
      if (err instanceof ActivityFailure) {
        const cause = failureCause(err, 'seed-failed');
        return this.fail(cause.code, cause.message);
      }
      throw err;
    }
    for (const s of seeded) {
      this.seedWarnings.push(...s.warnings);
      if (regions && s.texts.length === 0) continue;
      await driver.apply({ kind: 'seed', region: s.region, texts: s.texts, replaceSeeded: regions !== undefined });
    }
  }

  /** A sub-agent's ancestors, whose permissions its seeds and tools stay under. */
  private ceiling(): { ceiling?: CeilingLayer[] } {
    const layers = this.input.child?.lineage.ceiling ?? [];
    return layers.length > 0 ? { ceiling: layers } : {};
  }

  /** `spawn_agent {seed_context}`: starting material in the first pinned region the run shows, else the conversation. */
  async addSeedContext(text: string): Promise<void> {
    const { region, kind } = seedContextTarget(this.driver.state);
    await this.driver.apply({
      kind: 'write',
      region,
      entry: { content: text, tokens: await this.driver.count(text), kind, runtime: true },
    });
  }

  async enter(stage: string): Promise<void> {
    const entered = await this.driver.apply({ kind: 'enterStage', stage });
    if (!entered.ok) await this.fail(entered.code, entered.message);
    this.stagesVisited.push(stage);
    this.visitTurns = 0;
    this.facts = freshFacts(Date.now());
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

  /** One visit of the current stage as a child workflow; takes over the region set it hands back. */
  async visit(): Promise<StageOutcome> {
    const stage = this.driver.stage;
    this.childId = `${this.runId}.${++this.visits}.${stage}`;
    let outcome: StageOutcome;
    try {
      outcome = await executeChild(stageWorkflow, {
        workflowId: this.childId,
        args: [
          {
            runId: this.runId,
            blueprintHash: this.blueprintHash,
            blueprint: this.bp,
            stage,
            carried: this.driver.carried(),
            workdir: this.input.workdir,
            options: this.input.options,
            inferences: this.inferences,
            visitTurns: this.visitTurns,
            facts: this.facts,
            usage: emptyUsage(),
            ...(this.input.child ? { lineage: this.input.child.lineage } : {}),
          },
        ],
      });
    } catch (err) {
      const cause = failureCause(err, 'stage-failed');
      return this.fail('stage-failed', `stage "${stage}" failed: ${formatCoded(cause.code, cause.message)}`);
    }
    this.driver.adopt(outcome.carried);
    this.inferences = outcome.inferences;
    this.visitTurns = outcome.visitTurns;
    this.facts = outcome.facts;
    this.answer = outcome.facts.output ?? this.answer;
    this.addUsage(stage, outcome.usage);
    return outcome;
  }

  private addUsage(stage: string, usage: UsageTotals): void {
    this.usage = addUsage(this.usage, usage);
    this.perStage[stage] = addUsage(this.perStage[stage] ?? emptyUsage(), usage);
  }

  /** Asks the stage's model which edge to take; an answer naming none takes the first and is recorded. */
  async askEdge(route: Extract<Departure, { kind: 'choose' }>): Promise<EdgeDef | null> {
    const stage = this.driver.stage;
    const reply = await acts.infer.executeWithOptions(callOptions(this.input.options, `edge choice: ${stage}`), [
      {
        runId: this.runId,
        blueprintHash: this.blueprintHash,
        ...this.driver.replayInput(),
        stage,
        turn: this.inferences,
        stageTurn: this.visitTurns,
        purpose: 'edge-choice',
        question: route.prompt,
        options: route.options,
      },
    ]);
    this.inferences++;
    this.addUsage(stage, { calls: 1, ...reply.usage });
    const choice = chooseEdge(this.driver.state, this.bp, choiceText(reply.content));
    if (choice.kind === 'end') return null;
    if (choice.unmatched)
      await this.driver.apply({
        kind: 'diagnostic',
        code: 'edge-choice-unmatched',
        severity: 'warning',
        detail: unmatchedChoiceDetail(stage, choice.edge.target),
      });
    return choice.edge;
  }

  /** The completion checks of the edge (or of ending the run); false when they block and the stage runs again. */
  async checksPass(edge: EdgeDef | null): Promise<boolean> {
    const { modifyingCallSucceeded, modifyingCallDenied } = this.facts;
    const gate = await this.driver.apply({
      kind: 'gate',
      fromStage: this.driver.stage,
      target: edge?.target ?? null,
      facts: { modifyingCallSucceeded, modifyingCallDenied },
    });
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
