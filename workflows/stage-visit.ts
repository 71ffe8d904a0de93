/**
 * The steps of one stage visit (`stage.ts` sequences them): each step is
 * an activity or an engine operation, and every decision between them comes
 * from `src/runtime/visit.ts`. Workflow code: the order of activities and
 * operations here is what recorded histories replay.
 */
import { ActivityFailure, ApplicationFailure, condition, log } from '@temporalio/workflow';
import type { StageDef } from '../src/blueprint/types.js';
import type { ToolCall } from '../src/context/index.js';
import { pathToolHint } from '../src/context/routing.js';
import type { InferOutput, ToolResultOut } from '../src/runtime/index.js';
import {
  addUsage,
  type CallEffect,
  endInference,
  invalidArgumentsText,
  modifyingTools,
  noteTarget,
  type Progress,
  progressOf,
  type RuntimeNote,
  type StageInput,
  type StageOutcome,
  type StuckLimits,
  stuckLimits,
  tallyCall,
  toolCallSummary,
  toolFailedText,
  trackedPointer,
} from '../src/runtime/index.js';
import { fallbackDetail, MODEL_FALLBACK } from '../src/runtime/model-fallback.js';
import { afterPlainReply, interactiveReply, missedFanOut } from '../src/runtime/stage-modes.js';
import { onToolQueue } from '../src/runtime/tool-queue.js';
import { isGranted, notGrantedResult } from '../src/tools/grants.js';
import { FAN_OUT, isAgentTool, isContextTool } from '../src/tools/names.js';
import { acts, callOptions, EngineDriver } from './engine-driver.js';
import { SubAgents } from './sub-agents.js';

export class StageVisit {
  readonly driver: EngineDriver;
  readonly limits: StuckLimits;
  private readonly modifying: Set<string>;
  inferences: number;
  visitTurns: number;
  /** Inferences in this workflow run, for the continue-as-new cap. */
  runTurns = 0;
  usage: StageInput['usage'];
  facts: StageInput['facts'];
  finalContent: StageOutcome['finalContent'] = '';
  /** An interactive stage waits here for a person's reply (the `message` signal). */
  waiting = false;
  /** Replies of a person the `message` signal delivered, oldest first. */
  readonly inbox: string[] = [];
  /** The sub-agents this visit starts (docs/reference/sub-agents.md). */
  readonly agents: SubAgents;

  constructor(
    readonly input: StageInput,
    readonly def: StageDef,
  ) {
    this.driver = new EngineDriver(
      {
        runId: input.runId,
        blueprintHash: input.blueprintHash,
        bp: input.blueprint,
        options: input.options,
        log: (line) => log.info(line),
      },
      input.carried,
    );
    ({ inferences: this.inferences, visitTurns: this.visitTurns, usage: this.usage } = input);
    this.facts = { ...input.facts, editsPerPath: { ...input.facts.editsPerPath } };
    this.limits = stuckLimits(def);
    this.modifying = modifyingTools(def);
    this.agents = new SubAgents(input, def, this.driver);
  }

  get stage(): string {
    return this.def.name;
  }

  progress(): Progress {
    return progressOf(this.driver.state, {
      runId: this.input.runId,
      status: 'running',
      stage: this.stage,
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      usage: this.usage,
      ...(this.waiting ? { waiting: 'message' as const } : {}),
      ...this.workers(),
    });
  }

  private workers(): { workers?: NonNullable<Progress['workers']> } {
    const workers = this.agents.counts();
    return workers ? { workers } : {};
  }

  /** The visit's outcome once the agents it started have ended: a visit never leaves them running. */
  async finish(end: StageOutcome['end'], error?: string): Promise<StageOutcome> {
    await this.agents.settle();
    return this.outcome(end, error);
  }

  outcome(end: StageOutcome['end'], error?: string): StageOutcome {
    return {
      end,
      finalContent: this.finalContent,
      ...(error !== undefined ? { error } : {}),
      carried: this.driver.carried(),
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      facts: this.facts,
      usage: this.usage,
    };
  }

  /** The input of the next run of this visit after continue-as-new. */
  continuation(): StageInput {
    return {
      ...this.input,
      carried: this.driver.carried(),
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      facts: this.facts,
      usage: this.usage,
    };
  }

  async note({ region: preferred, text }: RuntimeNote): Promise<void> {
    const { region, kind } = noteTarget(this.driver.state, preferred);
    await this.driver.apply({
      kind: 'write',
      region,
      entry: { content: text, tokens: await this.driver.count(text), kind, runtime: true },
    });
  }

  /** A runtime message the model reads as a user turn of the conversation: a reminder, or a person's reply. */
  async tell(text: string): Promise<void> {
    await this.driver.apply({
      kind: 'write',
      region: 'conversation',
      entry: { content: text, tokens: await this.driver.count(text), kind: 'user', runtime: true },
    });
  }

  /**
   * After a reply without tool calls: true when the stage ends; otherwise an
   * output stage is reminded of its answer, or an interactive one waits for a
   * person, and the stage goes on.
   */
  async afterPlainReply(): Promise<boolean> {
    const step = afterPlainReply(this.def, this.facts);
    if (step.kind === 'end') return true;
    if (step.kind === 'forced') {
      await this.driver.apply({ kind: 'diagnostic', code: 'output-forced', severity: 'warning', detail: step.detail });
      return true;
    }
    if (step.kind === 'fan-out-empty' || step.kind === 'ask-fan-out') {
      this.facts = { ...this.facts, ...missedFanOut(this.def, this.facts).facts };
      if (step.kind === 'fan-out-empty') {
        await this.fanOutEmpty(step.detail);
        return true;
      }
      await this.tell(step.text);
      return false;
    }
    if (step.kind === 'remind') this.facts = { ...this.facts, outputReminders: (this.facts.outputReminders ?? 0) + 1 };
    if (step.kind === 'wait') {
      this.waiting = true;
      await condition(() => this.inbox.length > 0);
      this.waiting = false;
    }
    const next =
      step.kind === 'wait'
        ? interactiveReply(this.inbox.shift() ?? '')
        : { kind: 'continue' as const, text: step.text };
    if (next.kind === 'end') return true;
    await this.tell(next.text);
    return false;
  }

  /** A fan-out stage that gave up on its `fan_out` call: warned, and noted for the merge stage. */
  private async fanOutEmpty(detail: string): Promise<void> {
    await this.driver.apply({ kind: 'diagnostic', code: 'fan-out-empty', severity: 'warning', detail });
    await this.note({ region: 'error_report', text: `[fan-out-empty] ${detail}.` });
  }

  /** The maintenance point before an inference: compaction, the cascade, a snapshot when the log is long. */
  async maintain(): Promise<void> {
    this.driver.turn = this.inferences;
    await this.driver.apply({ kind: 'maintain' });
    this.usage = addUsage(this.usage, this.driver.takeSummaryUsage());
    await this.driver.compactLog();
  }

  /**
   * One inference; a failed inference activity answers its message instead of a reply, or `fallback`
   * when the stage's model chain moved past a provider that became unusable (recorded as `model-fallback`).
   */
  async infer(): Promise<InferOutput | { failed: string } | { fallback: true }> {
    let reply: InferOutput;
    try {
      reply = await acts.infer.executeWithOptions(
        callOptions(this.input.options, `inference: ${this.stage}, turn ${this.visitTurns + 1}`),
        [
          {
            runId: this.input.runId,
            blueprintHash: this.input.blueprintHash,
            ...this.driver.replayInput(),
            stage: this.stage,
            turn: this.inferences,
            stageTurn: this.visitTurns,
            purpose: 'turn',
          },
        ],
      );
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const message = err.cause?.message ?? err.message;
      const cause = err.cause instanceof ApplicationFailure ? err.cause : undefined;
      const fallback = fallbackDetail(this.def, this.driver.state.diagnostics, {
        type: cause?.type,
        model: (cause?.details?.[0] as { model?: unknown } | undefined)?.model,
        message,
      });
      if (!fallback) return { failed: message };
      await this.driver.apply({ kind: 'diagnostic', code: MODEL_FALLBACK, severity: 'warning', detail: fallback });
      return { fallback: true };
    }
    this.inferences++;
    this.visitTurns++;
    this.runTurns++;
    this.usage = addUsage(this.usage, { calls: 1, ...reply.usage });
    return reply;
  }

  /** Records what the provider reported and stores the assistant turn; true when it called tools. */
  async storeReply(reply: InferOutput): Promise<boolean> {
    const driver = this.driver;
    if (reply.reportedPromptTokens !== undefined)
      await driver.apply({ kind: 'usage', promptTokens: reply.reportedPromptTokens });
    for (const detail of reply.renderFailures)
      await driver.apply({ kind: 'diagnostic', code: 'custom-render-failed', severity: 'warning', detail });
    const calls: ToolCall[] = reply.toolCalls.map(({ argTokens: _counted, ...call }) => call);
    const invalid = reply.invalidToolCalls.map((c) => ({ id: c.id, name: c.name, arguments: {} }));
    await driver.apply({
      kind: 'write',
      region: 'conversation',
      entry: { kind: 'assistant', content: reply.content, tokens: reply.tokens, toolCalls: [...calls, ...invalid] },
    });
    this.finalContent = reply.content;
    return calls.length > 0 || invalid.length > 0;
  }

  /** Answers every call of the reply, in call order, and closes the inference's progress facts. */
  async answerCalls(reply: InferOutput): Promise<void> {
    for (const bad of reply.invalidToolCalls) {
      await this.routeError({ id: bad.id, name: bad.name, arguments: {} }, invalidArgumentsText(bad.name, bad.error));
    }
    const running = this.startBuiltins(reply);
    const alone = reply.toolCalls.length + reply.invalidToolCalls.length === 1;
    let progressed = false;
    for (const { argTokens, ...call } of reply.toolCalls) {
      const effect = await this.answerCall(call, argTokens, running, alone);
      const tally = tallyCall(this.facts, this.modifying, effect);
      this.facts = tally.facts;
      progressed ||= tally.progressed;
    }
    this.facts = endInference(this.facts, progressed, Date.now());
  }

  /** Built-in tools are independent of each other: start them all now, store their results in call order. */
  private startBuiltins(reply: InferOutput): Map<string, Promise<ToolResultOut>> {
    const { input, stage } = this;
    const running = new Map<string, Promise<ToolResultOut>>();
    for (const { argTokens: _counted, ...call } of reply.toolCalls) {
      if (isContextTool(call.name) || isAgentTool(call.name) || !isGranted(input.blueprint, stage, call.name)) continue;
      running.set(
        call.id,
        acts.runTool.executeWithOptions(
          onToolQueue(input.options, callOptions(input.options, toolCallSummary(call), 3)),
          [
            {
              runId: input.runId,
              blueprintHash: input.blueprintHash,
              stage,
              call,
              workdir: input.workdir,
              unattended: input.options.unattended,
              ...(input.lineage?.ceiling.length ? { ceiling: input.lineage.ceiling } : {}),
            },
          ],
        ),
      );
    }
    return running;
  }

  private async routeError(call: ToolCall, text: string): Promise<void> {
    await this.driver.apply({
      kind: 'route',
      call,
      result: { content: text, tokens: await this.driver.count(text), isError: true },
    });
  }

  private async answerCall(
    call: ToolCall,
    argTokens: InferOutput['toolCalls'][number]['argTokens'],
    running: Map<string, Promise<ToolResultOut>>,
    alone: boolean,
  ): Promise<CallEffect> {
    const { driver, input, stage } = this;
    if (!isGranted(input.blueprint, stage, call.name)) {
      await this.routeError(call, notGrantedResult(input.blueprint, stage, call.name));
      return { kind: 'refused' };
    }
    if (isAgentTool(call.name)) return this.answerAgent(call, alone);
    if (isContextTool(call.name)) {
      const result = await driver.apply({
        kind: 'contextTool',
        tool: call.name,
        args: call.arguments,
        counts: argTokens,
      });
      await driver.apply({
        kind: 'route',
        call,
        result: { content: result.content, tokens: await driver.count(result.content), isError: result.isError },
      });
      return { kind: 'context', tool: call.name, isError: result.isError };
    }
    let result: ToolResultOut;
    try {
      result = await running.get(call.id)!;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const text = toolFailedText(call.name, err.cause?.message ?? err.message);
      result = { content: text, tokens: await driver.count(text), isError: true, modifiedPaths: [], denied: false };
    }
    let { content, tokens } = await this.keepTrackedFile(call, result);
    const hint =
      result.isError && typeof content === 'string'
        ? pathToolHint(driver.state, call.name, call.arguments, content)
        : undefined;
    if (hint) {
      content = `${content}\n${hint}`;
      tokens += await driver.count(`\n${hint}`);
    }
    await driver.apply({ kind: 'route', call, result: { content, tokens, isError: result.isError } });
    if (result.output) this.facts = { ...this.facts, output: { ...result.output, stage } };
    return { kind: 'builtin', tool: call.name, ...result };
  }

  /**
   * An agent tool: its answer is routed like any tool result. A fan-out
   * stage's `fan_out` call decides the visit: done when its workers ran, one
   * more miss when it was refused.
   */
  private async answerAgent(call: ToolCall, alone: boolean): Promise<CallEffect> {
    const answer = await this.agents.answer(call, alone);
    const { content } = answer;
    const tokens = answer.tokens ?? (await this.driver.count(typeof content === 'string' ? content : content.preview));
    await this.driver.apply({ kind: 'route', call, result: { content, tokens, isError: answer.isError } });
    if (this.def.fanOut && call.name === FAN_OUT && !this.facts.fanOutDone) {
      if (answer.fannedOut) {
        const failed = answer.isError ? `a worker of stage "${this.stage}" failed, so its fan-out failed` : undefined;
        this.facts = { ...this.facts, fanOutDone: true, ...(failed ? { fanOutFailed: failed } : {}) };
        if (failed) {
          await this.driver.apply({ kind: 'diagnostic', code: 'fan-out-failed', severity: 'warning', detail: failed });
          await this.note({ region: 'error_report', text: `[fan-out-failed] ${failed}; the report names the worker.` });
        }
      } else {
        const missed = missedFanOut(this.def, this.facts);
        this.facts = { ...this.facts, ...missed.facts };
        if (missed.gaveUp) await this.fanOutEmpty(missed.gaveUp);
      }
    }
    return { kind: 'agent', tool: call.name, isError: answer.isError };
  }

  /** Stores a tracked file's text in the file-tracking region; the model gets a pointer to it instead. */
  private async keepTrackedFile(
    call: ToolCall,
    result: ToolResultOut,
  ): Promise<Pick<ToolResultOut, 'content' | 'tokens'>> {
    const tracking = this.input.blueprint.fileTracking;
    if (!result.tracked || !tracking) return result;
    const { key, content, tokens } = result.tracked;
    const stored = await this.driver.apply({ kind: 'write', region: tracking.region, entry: { content, tokens, key } });
    if (!stored.ok) return result;
    const pointer = trackedPointer(call.name, key, tokens, tracking.region);
    return { content: pointer, tokens: await this.driver.count(pointer) };
  }
}
