/**
 * One visit of one stage: the inference loop. Render (inside the inference
 * activity), infer, store the assistant turn, run its tool calls, route the
 * results, keep the region set within budget, and repeat until the model
 * answers without tool calls, the iteration cap, an error, or `stuck`.
 * Continues as new when Temporal suggests it or after a turn cap, carrying
 * the region set.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  log,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { StageDef } from '../src/blueprint/types.js';
import { type Content, findRegion, type ToolCall } from '../src/context/index.js';
import { pathToolHint } from '../src/context/routing.js';
import type { InferOutput } from '../src/runtime/inference.js';
import { fallbackDetail, MODEL_FALLBACK } from '../src/runtime/model-fallback.js';
import { STAGE_KEY } from '../src/runtime/search-attributes.js';
import { afterPlainReply, endsWithOutput, interactiveReply } from '../src/runtime/stage-modes.js';
import type { ToolResultOut } from '../src/runtime/tool-call.js';
import { onToolQueue } from '../src/runtime/tool-queue.js';
import { addUsage, type Progress, regionBars, type StageInput, type StageOutcome } from '../src/runtime/types.js';
import { isGranted, notGrantedResult } from '../src/tools/grants.js';
import { canonicalTool, isContextTool, MODIFYING_TOOLS } from '../src/tools/names.js';
import { acts, callOptions, EngineDriver } from './engine-driver.js';

export const stageProgressQuery = defineQuery<Progress>('progress');
/** A person's reply to an interactive stage; `lev run` sends it from its terminal. */
export const messageSignal = defineSignal<[string]>('message');

const CONVERSATION = 'conversation';

function stuckLimits(def: StageDef) {
  const edges = def.transitions.filter((t) => t.condition === 'stuck');
  const min = (pick: (e: (typeof edges)[number]) => number | undefined) => {
    const values = edges.map(pick).filter((v): v is number => typeof v === 'number' && v > 0);
    return values.length ? Math.min(...values) : undefined;
  };
  return {
    iterations: min((e) => e.stuckAfterIterations),
    minutes: min((e) => e.stuckAfterMinutes),
    toolCalls: min((e) => e.stuckAfterToolCalls),
    sameFileEdits: min((e) => e.stuckAfterSameFileEdits),
  };
}

export async function stageWorkflow(input: StageInput): Promise<StageOutcome> {
  const { bp, stage } = { bp: input.blueprint, stage: input.stage };
  const def = bp.stages.find((s) => s.name === stage);
  if (!def) throw ApplicationFailure.nonRetryable(`no stage "${stage}" in blueprint ${bp.agent.name}`, 'unknown-stage');
  const driver = new EngineDriver(
    {
      runId: input.runId,
      blueprintHash: input.blueprintHash,
      bp,
      options: input.options,
      log: (line) => log.info(line),
    },
    input.carried,
  );
  let { inferences, visitTurns, usage } = input;
  const facts = { ...input.facts, editsPerPath: { ...input.facts.editsPerPath } };
  let finalContent: Content = '';
  let runTurns = 0;
  const limits = stuckLimits(def);
  const modifying = new Set([
    ...MODIFYING_TOOLS,
    ...def.transitions.flatMap((t) => t.gate?.tools ?? []).map(canonicalTool),
  ]);

  upsertSearchAttributes([{ key: STAGE_KEY, value: stage }]);
  const inbox: string[] = [];
  let waiting = false;
  setHandler(messageSignal, (text) => void inbox.push(text));
  setHandler(stageProgressQuery, () => {
    const regions = regionBars(driver.state);
    return {
      runId: input.runId,
      status: 'running',
      stage,
      inferences,
      visitTurns,
      regions,
      window: {
        max: driver.state.window.max,
        used: regions.reduce((a, r) => a + r.tokens, 0),
        gap: driver.state.window.gap,
      },
      gatesForced: driver.state.gatesForced,
      usage,
      ...(waiting ? { waiting: 'message' as const } : {}),
    };
  });

  const outcome = (end: StageOutcome['end'], error?: string): StageOutcome => ({
    end,
    finalContent,
    ...(error !== undefined ? { error } : {}),
    carried: driver.carried(),
    inferences,
    visitTurns,
    facts,
    usage,
  });

  const progress = () => {
    facts.idleInferences = 0;
    facts.toolCallsWithoutProgress = 0;
    facts.lastProgressAt = Date.now();
  };

  const note = async (regionPreferred: string, text: string) => {
    const region =
      findRegion(driver.state, regionPreferred) && !findRegion(driver.state, regionPreferred)?.hidden
        ? regionPreferred
        : CONVERSATION;
    const kind = region === CONVERSATION ? 'user' : 'text';
    await driver.apply({
      kind: 'write',
      region,
      entry: { content: text, tokens: await driver.count(text), kind, runtime: true },
    });
  };

  for (;;) {
    if (def.maxIterations !== undefined && visitTurns >= def.maxIterations) {
      await note('error_report', `Stage "${stage}" reached its limit of ${def.maxIterations} inferences.`);
      return outcome('max_iterations');
    }
    if (
      (limits.iterations !== undefined && facts.idleInferences >= limits.iterations) ||
      (limits.toolCalls !== undefined && facts.toolCallsWithoutProgress >= limits.toolCalls) ||
      (limits.minutes !== undefined && Date.now() - facts.lastProgressAt >= limits.minutes * 60_000) ||
      (limits.sameFileEdits !== undefined && Object.values(facts.editsPerPath).some((n) => n >= limits.sameFileEdits!))
    ) {
      await note(
        'stuck_report',
        `Stage "${stage}" made no progress (${facts.idleInferences} inferences, ${facts.toolCallsWithoutProgress} tool calls since the last change).`,
      );
      return outcome('stuck');
    }
    if (runTurns >= input.options.turnsPerRun || workflowInfo().continueAsNewSuggested) {
      await driver.compactLog(true);
      return continueAsNew<typeof stageWorkflow>({
        ...input,
        carried: driver.carried(),
        inferences,
        visitTurns,
        facts,
        usage,
      });
    }

    driver.turn = inferences;
    await driver.apply({ kind: 'maintain' });
    usage = addUsage(usage, driver.takeSummaryUsage());
    await driver.compactLog();

    let reply: InferOutput;
    try {
      reply = await acts.infer.executeWithOptions(
        callOptions(input.options, `inference: ${stage}, turn ${visitTurns + 1}`),
        [
          {
            runId: input.runId,
            blueprintHash: input.blueprintHash,
            ...driver.replayInput(),
            stage,
            turn: inferences,
            stageTurn: visitTurns,
            purpose: 'turn',
          },
        ],
      );
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const message = err.cause?.message ?? err.message;
      const cause = err.cause instanceof ApplicationFailure ? err.cause : undefined;
      const fallback = fallbackDetail(def, driver.state.diagnostics, {
        type: cause?.type,
        model: (cause?.details?.[0] as { model?: unknown } | undefined)?.model,
        message,
      });
      if (fallback) {
        await driver.apply({ kind: 'diagnostic', code: MODEL_FALLBACK, severity: 'warning', detail: fallback });
        continue;
      }
      await note('error_report', `Inference failed in stage "${stage}": ${message}`);
      return outcome('error', message);
    }
    inferences++;
    visitTurns++;
    runTurns++;
    usage = addUsage(usage, { calls: 1, ...reply.usage });
    if (reply.reportedPromptTokens !== undefined)
      await driver.apply({ kind: 'usage', promptTokens: reply.reportedPromptTokens });
    for (const detail of reply.renderFailures)
      await driver.apply({ kind: 'diagnostic', code: 'custom-render-failed', severity: 'warning', detail });

    const calls: ToolCall[] = reply.toolCalls.map(({ argTokens: _counted, ...call }) => call);
    const invalid = reply.invalidToolCalls.map((c) => ({ id: c.id, name: c.name, arguments: {} }));
    await driver.apply({
      kind: 'write',
      region: CONVERSATION,
      entry: { kind: 'assistant', content: reply.content, tokens: reply.tokens, toolCalls: [...calls, ...invalid] },
    });
    finalContent = reply.content;

    if (calls.length === 0 && invalid.length === 0) {
      const step = afterPlainReply(def, facts);
      if (step.kind === 'end') return outcome('completed');
      if (step.kind === 'forced') {
        await driver.apply({ kind: 'diagnostic', code: 'output-forced', severity: 'warning', detail: step.detail });
        return outcome('completed');
      }
      if (step.kind === 'remind') facts.outputReminders = (facts.outputReminders ?? 0) + 1;
      if (step.kind === 'wait') {
        waiting = true;
        await condition(() => inbox.length > 0);
        waiting = false;
      }
      const reply =
        step.kind === 'wait' ? interactiveReply(inbox.shift() ?? '') : { kind: 'continue' as const, text: step.text };
      if (reply.kind === 'end') return outcome('completed');
      await note(CONVERSATION, reply.text);
      continue;
    }

    let progressed = false;
    for (const bad of reply.invalidToolCalls) {
      const text = `[bad-argument] the arguments of ${bad.name} were not a JSON object (${bad.error}); call it again with valid JSON.`;
      await driver.apply({
        kind: 'route',
        call: { id: bad.id, name: bad.name, arguments: {} },
        result: { content: text, tokens: await driver.count(text), isError: true },
      });
    }

    // Built-in tools are independent of each other: start them all, then store results in call order.
    const running = new Map<string, Promise<ToolResultOut>>();
    for (const call of calls) {
      if (isContextTool(call.name) || !isGranted(bp, stage, call.name)) continue;
      running.set(
        call.id,
        acts.runTool.executeWithOptions(
          onToolQueue(
            input.options,
            callOptions(
              input.options,
              `tool: ${call.name} ${String(call.arguments.path ?? call.arguments.command ?? call.arguments.pattern ?? '').slice(0, 80)}`.trim(),
              3,
            ),
          ),
          [
            {
              runId: input.runId,
              blueprintHash: input.blueprintHash,
              stage,
              call,
              workdir: input.workdir,
              unattended: input.options.unattended,
            },
          ],
        ),
      );
    }

    for (const counted of reply.toolCalls) {
      const { argTokens, ...call } = counted;
      if (!isGranted(bp, stage, call.name)) {
        const text = notGrantedResult(bp, stage, call.name);
        await driver.apply({
          kind: 'route',
          call,
          result: { content: text, tokens: await driver.count(text), isError: true },
        });
        facts.toolCallsWithoutProgress++;
        continue;
      }
      if (isContextTool(call.name)) {
        const result = await driver.apply<{ content: string; isError: boolean }>({
          kind: 'contextTool',
          tool: call.name,
          args: call.arguments,
          counts: argTokens,
        });
        if (!result.isError && !['context_read', 'context_list'].includes(call.name)) progressed = true;
        await driver.apply({
          kind: 'route',
          call,
          result: { content: result.content, tokens: await driver.count(result.content), isError: result.isError },
        });
        facts.toolCallsWithoutProgress++;
        continue;
      }
      let result: ToolResultOut;
      try {
        result = await running.get(call.id)!;
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        const text = `[tool-failed] ${call.name} failed: ${err.cause?.message ?? err.message}`;
        result = { content: text, tokens: await driver.count(text), isError: true, modifiedPaths: [], denied: false };
      }
      const canonical = canonicalTool(call.name);
      if (modifying.has(canonical)) {
        if (result.denied) facts.modifyingCallDenied = true;
        else if (!result.isError) {
          facts.modifyingCallSucceeded = true;
          progressed = true;
        }
      }
      for (const path of result.modifiedPaths) facts.editsPerPath[path] = (facts.editsPerPath[path] ?? 0) + 1;
      if (result.output) facts.output = { ...result.output, stage };
      let { content, tokens } = result;
      if (result.tracked && bp.fileTracking) {
        const { key, content: fileText, tokens: fileTokens } = result.tracked;
        const region = bp.fileTracking.region;
        const stored = await driver.apply<{ ok: boolean }>({
          kind: 'write',
          region,
          entry: { content: fileText, tokens: fileTokens, key },
        });
        if (stored.ok) {
          content = `${call.name} ${key}: the file's text (${fileTokens} tokens) is kept in region "${region}" under key "${key}", already in your prompt.`;
          tokens = await driver.count(content);
        }
      }
      const hint =
        result.isError && typeof content === 'string'
          ? pathToolHint(driver.state, call.name, call.arguments, content)
          : undefined;
      if (hint) {
        content = `${content}\n${hint}`;
        tokens += await driver.count(`\n${hint}`);
      }
      await driver.apply({ kind: 'route', call, result: { content, tokens, isError: result.isError } });
      facts.toolCallsWithoutProgress++;
    }

    if (progressed) progress();
    else facts.idleInferences++;
    if (endsWithOutput(def, facts)) return outcome('completed');
  }
}
