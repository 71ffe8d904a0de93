/**
 * The inference activity's work: rebuild the region set from snapshot plus
 * operations, render the prompt, resolve blob contents, call the model, and
 * hand back the answer already counted (large text as a blob reference).
 * The rendered prompt never travels through workflow history.
 */

import { type BlobStore, toContent } from '../../blobs/index.js';
import { limitsFor } from '../../blueprint/rate-limits-table.js';
import { stageModel } from '../../blueprint/stage-layouts.js';
import {
  type Content,
  type PromptMessage,
  type RunState,
  replyLimit,
  storesContent,
  type ToolCall,
} from '../../context/index.js';
import { renderPrompt } from '../../context/render.js';
import { windowUsed } from '../../context/state.js';
import type { ToolCatalog } from '../../mcp/tool-names.js';
import { recordModelCall, recordModelError } from '../../metrics/leviath.js';
import {
  SUBMIT_OUTPUT,
  SUBMIT_OUTPUT_PARAMETERS,
  stageOutputSpec,
  submitOutputDescription,
} from '../../outputs/spec.js';
import { encodingFor, lookupModel, replyCap } from '../../providers/builtin-models.js';
import { getProvider, type HandBack, isProviderError } from '../../providers/index.js';
import type { ResolvedSystemBlock } from '../../providers/provider.js';
import type { Blueprint, ScriptToolDef } from '../../shapes/frozen-blueprint.js';
import { countTokens, countToolCall, isLongText, tokenMeter } from '../../tokens/index.js';
import { FAN_OUT, isAgentTool, isContextTool } from '../../tools/builtin-names.js';
import { stageTools } from '../../tools/grants.js';
import { type ToolSpec, toolSpecs } from '../../tools/specs.js';
import type { CountedToolCall, InferInput, InferOutput } from '../activity-types.js';
import { ENGINE } from '../engine-calls.js';
import { HAND_BACK_RETRY_AFTER_MS } from '../provider-patience.js';
import { replyCounts } from '../reply-counts.js';
import { grantNote, runTools, specStage } from '../run-tools.js';
import { answerOnce } from './answered-calls.js';
import { expandArguments } from './arguments.js';
import { loadCatalog, mcpSpecTokens, mcpToolSpecs, requestPromptTokens, stageMcpTools } from './mcp-tools.js';
import { chooseModel } from './model-choice.js';
import { providerRef } from './model-ref.js';
import { throughGate } from './provider-gate.js';
import type { RunStore } from './run-store.js';
import { loadWritten } from './written-tools.js';

export type { CountedToolCall, InferInput, InferOutput };

async function resolve(store: BlobStore, parts: Content[]): Promise<string> {
  const texts = await Promise.all(parts.map((p) => (typeof p === 'string' ? p : store.get(p.hash))));
  return texts.join('');
}

async function resolveMessages(store: BlobStore, messages: PromptMessage[]): Promise<PromptMessage[]> {
  return Promise.all(
    messages.map(async (m) => {
      const full = m.blob ? { ...m, content: await store.get(m.blob.hash), blob: undefined } : m;
      if (full.role === 'user' && full.parts)
        return { ...full, content: await resolve(store, full.parts), parts: undefined };
      if (full.role !== 'assistant' || !full.toolCalls?.some((c) => c.blobArgs)) return full;
      return { ...full, toolCalls: await Promise.all(full.toolCalls.map((c) => expandArguments(store, c))) };
    }),
  );
}

/** Runs the call, tagging a provider failure with the chain entry that failed (for `model-fallback`). */
async function callModel<T>(model: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isProviderError(err)) err.model = model;
    recordModelError(model, isProviderError(err) ? err.kind : 'other');
    throw err;
  }
}

/**
 * The tool specs a turn of the stage offers: the stage's own, or with `runWide` the run's
 * (`runTools`, docs/reference/rendering.md#the-tool-list), each in the version of the stage that
 * may call it (`specStage`); `submit_output` describes the answer that stage asks for, and the
 * agent tools say which agents and stages it may start. `written` are the scripts the run wrote
 * that the turn offers (docs/reference/script-tools.md#tools-a-run-writes); a name the stage
 * lists for one is offered only while its script is there. MCP tools are the stage's own either
 * way: its visit discovers only the servers it is granted.
 */
export function stageToolSpecs(
  bp: Blueprint,
  stage: string,
  catalog: ToolCatalog | undefined,
  runWide = false,
  written: readonly ScriptToolDef[] = [],
): ToolSpec[] {
  const names = runWide ? runTools(bp) : stageTools(bp, stage);
  const owner = (name: string) => (runWide ? specStage(bp, stage, name) : stage);
  const specs = toolSpecs(names, [...(bp.scriptTools ?? []), ...written]).map((spec) =>
    isAgentTool(spec.name) ? withWorkers(bp, owner(spec.name), spec) : spec,
  );
  if (catalog) specs.push(...mcpToolSpecs(catalog, stageMcpTools(bp, stage, catalog)));
  if (names.includes(SUBMIT_OUTPUT))
    specs.push({
      name: SUBMIT_OUTPUT,
      description: submitOutputDescription(stageOutputSpec(bp, owner(SUBMIT_OUTPUT))),
      parameters: SUBMIT_OUTPUT_PARAMETERS,
    });
  return specs;
}

/**
 * Moves a call's long text arguments to the blob store, so history carries a reference where
 * the model wrote the text (docs/reference/regions.md#stored-arguments): any long argument of
 * a built-in tool (the tool activity reads it back), and the `content` of a context-tool write
 * the engine can keep as stored text; never an agent tool's, which the workflow reads.
 */
async function storeArguments(store: BlobStore, state: RunState, call: ToolCall): Promise<ToolCall> {
  // The workflow reads an agent tool's arguments itself (the task, the items), so they stay inline.
  if (isAgentTool(call.name)) return call;
  const names = isContextTool(call.name)
    ? storesContent(state, call.name, call.arguments) && isLongText(call.arguments.content)
      ? ['content']
      : []
    : Object.keys(call.arguments).filter((name) => isLongText(call.arguments[name]));
  if (names.length === 0) return call;
  const args = { ...call.arguments };
  for (const name of names) args[name] = await store.put(args[name] as string);
  return { ...call, arguments: args, blobArgs: names };
}

/** What the stage may start, appended to an agent tool's description. */
function withWorkers(bp: Blueprint, stage: string, spec: ToolSpec): ToolSpec {
  const fanOut = bp.stages.find((s) => s.name === stage)?.fanOut;
  if (fanOut && spec.name === FAN_OUT) {
    const worker = 'stage' in fanOut.worker ? `stage "${fanOut.worker.stage}"` : `agent "${fanOut.worker.agent}"`;
    return {
      ...spec,
      description: `${spec.description}\n\nThis stage's worker is ${worker}; leave out agent and stage.`,
    };
  }
  if (spec.name !== FAN_OUT && spec.name !== 'spawn_agent') return spec;
  const agents = Object.keys(bp.agentRefs ?? {});
  const stages = bp.stages.filter((s) => s.allowAsWorker).map((s) => s.name);
  const lines = [
    agents.length > 0 ? `Agents you can start: ${agents.join(', ')}.` : '',
    stages.length > 0 ? `Stages that run as workers: ${stages.join(', ')}.` : '',
  ].filter(Boolean);
  return lines.length > 0 ? { ...spec, description: `${spec.description}\n\n${lines.join(' ')}` } : spec;
}

/** When a retryable provider failure of this call goes back to its visit (`InferInput.handBackAfter`). */
export function handBackOf(input: InferInput): HandBack | undefined {
  return input.handBackAfter !== undefined
    ? { afterAttempts: input.handBackAfter, retryAfterMs: HAND_BACK_RETRY_AFTER_MS }
    : undefined;
}

/**
 * How long an attempt may wait for a `[rate_limits]` slot: what its
 * start-to-close timeout leaves beside the provider's own timeout, else half
 * of it, so an attempt ends with a coded failure rather than a timeout.
 */
export function slotWaitMs(startToCloseMs: number, providerTimeoutMs: number): number {
  const left = startToCloseMs - providerTimeoutMs;
  return left >= 60_000 ? left : Math.floor(startToCloseMs / 2);
}

/** What the activity knows of the call besides its input. */
export interface InferContext {
  /** Temporal's attempt number. */
  attempt: number;
  /** Aborts the provider call. */
  signal?: AbortSignal;
  /** The answer's key (`answerKey`): a call with one answers once across attempts and workers. */
  key?: string;
  /** When waiting for a `[rate_limits]` slot gives up (ms since the epoch). */
  slotDeadline?: number;
  /** Takes the reply's text so far while it streams (the activity heartbeats it). */
  onText?: (textSoFar: string) => void;
}

export async function infer(store: RunStore, input: InferInput, ctx: InferContext): Promise<InferOutput> {
  return ctx.key ? answerOnce(store, ctx.key, () => inferNow(store, input, ctx)) : inferNow(store, input, ctx);
}

/**
 * What an inference puts in front of the model: the region set its snapshot and operations
 * rebuild, the chain entry it asks, and the prompt rendered from them with every blob
 * resolved. `lev context --turn` shows a past turn's window with it
 * (docs/reference/cli.md#lev-context).
 */
export async function renderedRequest(store: RunStore, input: InferInput) {
  const bp = await store.blueprint(input.blueprintHash);
  const state = await store.state(input.runId, bp, input.base, input.ops);
  const model = chooseModel(bp, input.stage, state.diagnostics, store.config.env, input.avoid);
  const info = lookupModel(bp.models, model);
  const encoding = encodingFor(model, info);
  const hooks = store.hooks(bp);
  const catalog = input.catalog ? await loadCatalog(store, input.catalog) : undefined;
  const note = input.stableTools
    ? grantNote(bp, input.stage, catalog ? stageMcpTools(bp, input.stage, catalog) : [])
    : undefined;
  const rendered = renderPrompt(
    state,
    bp,
    { now: 0, ...(hooks ? { hooks } : {}) },
    { iteration: input.stageTurn, meter: tokenMeter(encoding), ...(note ? { grantNote: note } : {}) },
  );
  const system: ResolvedSystemBlock[] = await Promise.all(
    rendered.system.map(async (block) => ({
      text: await resolve(store.blobs, block.text),
      ...(block.cache ? { cache: true } : {}),
    })),
  );
  const messages = await resolveMessages(store.blobs, rendered.messages);
  if (input.question) messages.push({ role: 'user', content: input.question });
  return { bp, state, model, info, encoding, hooks, catalog, rendered, system, messages };
}

async function inferNow(store: RunStore, input: InferInput, ctx: InferContext): Promise<InferOutput> {
  const { attempt, signal } = ctx;
  const { bp, state, model, info, encoding, hooks, catalog, rendered, system, messages } = await renderedRequest(
    store,
    input,
  );
  const parameters = bp.stages.find((s) => s.name === input.stage)?.modelParameters;
  const limit = replyLimit(state, replyCap(info, parameters?.max_tokens));
  const snapshot = input.snapshot ? await store.snapshotOf(input.runId, state) : undefined;

  const tools =
    input.purpose === 'turn'
      ? stageToolSpecs(bp, input.stage, catalog, input.stableTools === true, await loadWritten(store, input.written))
      : [];
  // What the MCP servers put in front of the model is counted into the request, beside the regions.
  const mcpSpecs =
    catalog && input.purpose === 'turn' ? mcpToolSpecs(catalog, stageMcpTools(bp, input.stage, catalog)) : [];
  const used = windowUsed(state);
  const mcpTokens = mcpSpecTokens(mcpSpecs, (text) => countTokens(text, encoding));
  const ref = providerRef(bp, model);
  const response = await callModel(model, () => {
    const provider = getProvider(ref, store.config.env, store.scriptProviders(bp));
    const gate = {
      limits: limitsFor(store.rateLimits(), ref),
      tokens: used + mcpTokens,
      ...(signal ? { signal } : {}),
      ...(ctx.slotDeadline !== undefined ? { deadline: ctx.slotDeadline } : {}),
    };
    return throughGate(ref, provider, gate, () =>
      provider.infer(
        {
          model: ref,
          system,
          messages,
          tools,
          maxTokens: limit,
          ...(parameters ? { parameters } : {}),
          meta: {
            runId: input.runId,
            stage: input.stage,
            turn: input.turn,
            purpose: input.purpose,
            attempt,
            stageTurn: input.stageTurn,
            ...(input.options ? { options: input.options } : {}),
          },
        },
        { ...(signal ? { signal } : {}), ...(ctx.onText ? { onText: ctx.onText } : {}) },
      ),
    );
  });

  recordModelCall(bp, { model, stage: input.stage, purpose: input.purpose, usage: response.usage });
  let tokens = countTokens(response.text, encoding);
  const toolCalls = await Promise.all(
    response.toolCalls.map(async (call) => {
      const counted = countToolCall(call, (text) => countTokens(text, encoding));
      tokens += counted.tokens;
      return { ...(await storeArguments(store.blobs, state, call)), argTokens: counted.argTokens };
    }),
  );
  const reply = {
    content: await toContent(store.blobs, response.text),
    tokens,
    toolCalls,
    invalidToolCalls: response.invalidToolCalls,
  };
  // The workflow counts with its stage's first model, whichever model of the chain answered.
  const first = stageModel(bp, input.stage);
  const stageEncoding = encodingFor(first, lookupModel(bp.models, first));
  const counted =
    input.purpose === 'turn'
      ? replyCounts(
          ENGINE,
          state,
          bp,
          input.stage,
          reply,
          { now: 0, ...(hooks ? { hooks } : {}) },
          (text) => countTokens(text, stageEncoding),
          catalog ? stageMcpTools(bp, input.stage, catalog) : [],
        )
      : [];
  const promptTokens = requestPromptTokens(response.reportedPromptTokens, used, mcpTokens);
  const cuts = rendered.failures.filter((f) => f.code === 'custom-render-over-budget').map((f) => f.detail);
  return {
    ...reply,
    usage: response.usage,
    ...(promptTokens !== undefined ? { reportedPromptTokens: promptTokens } : {}),
    stopReason: response.stopReason,
    renderFailures: rendered.failures.filter((f) => f.code === 'custom-render-failed').map((f) => f.detail),
    ...(cuts.length > 0 ? { renderCuts: cuts } : {}),
    ...(snapshot !== undefined ? { snapshot } : {}),
    ...(counted.length > 0 ? { counted } : {}),
    endedAt: Date.now(),
    model,
  };
}
