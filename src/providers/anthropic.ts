/**
 * Anthropic Messages through the official SDK, streamed when the caller reads the text as it
 * comes (src/providers/anthropic-stream.ts). The neutral prompt becomes
 * system text blocks (in the engine's order, with the cache breakpoints it
 * chose) and strictly alternating messages in which every tool_use is
 * answered by a tool_result in the next user message.
 */

import { createRequire } from 'node:module';
import type AnthropicSdk from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { setWireFields } from '../shapes/parameter-wires.js';
import { cutUnits } from '../truncate.js';
import { assembleMessage } from './anthropic-stream.js';
import { parseModelRef } from './builtin-models.js';
import { type CallContext, callContext, classifyFailure, displayURL, type FailureFacts } from './classify.js';
import { answerTooLarge, bufferedFetch } from './http.js';
import { loadSdk } from './optional-sdk.js';
import { parameterFields } from './parameters.js';
import { checkToolInput, type ParsedToolCall, splitToolCalls } from './parse-tool-args.js';
import type {
  InferenceRequest,
  InferenceResponse,
  InferOptions,
  ModelProvider,
  StopReason,
  ToolSpec,
} from './provider.js';
import { causeOf, StreamCut, StreamStalled, streamingFetch, type WholeAnswer, wholeAnswerOr } from './stream.js';
import { causeText } from './transport.js';

const require = createRequire(import.meta.url);
let loaded: typeof AnthropicSdk | undefined;
/** The SDK loads with the first Anthropic client, so a worker that never calls Anthropic never holds it. */
function sdk(): typeof AnthropicSdk {
  loaded ??= loadSdk<{ default: typeof AnthropicSdk }>(require, '@anthropic-ai/sdk', 'Anthropic').default;
  return loaded;
}

/** Anthropic accepts at most this many cache breakpoints per request. */
export const MAX_CACHE_MARKERS = 4;

export interface AnthropicOptions {
  name: string;
  baseURL: string;
  apiKey: string;
  keyEnv?: string;
  timeoutMs: number;
}

type Role = 'user' | 'assistant';

/** A wire block plus what the pairing pass needs to rewrite an orphan. */
type Block =
  | { type: 'text'; text: string; cache: boolean }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; cache: boolean }
  | { type: 'tool_result'; toolUseId: string; toolName: string; content: string; isError: boolean; cache: boolean };

interface Turn {
  role: Role;
  blocks: Block[];
}

function pushMerged(turns: Turn[], role: Role, blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role === role) last.blocks.push(...blocks);
  else turns.push({ role, blocks: [...blocks] });
}

function neutralToTurns(req: InferenceRequest): Turn[] {
  const turns: Turn[] = [];
  for (const m of req.messages) {
    const blocks: Block[] = [];
    let role: Role;
    if (m.role === 'tool') {
      role = 'user';
      blocks.push({
        type: 'tool_result',
        toolUseId: m.toolCallId,
        toolName: m.toolName,
        content: m.content,
        isError: m.isError === true,
        cache: false,
      });
    } else {
      role = m.role;
      if (m.content.trim() !== '') blocks.push({ type: 'text', text: m.content, cache: false });
      if (m.role === 'assistant') {
        for (const c of m.toolCalls ?? []) {
          blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments, cache: false });
        }
      }
    }
    const last = blocks[blocks.length - 1];
    if (m.cache && last) last.cache = true;
    pushMerged(turns, role, blocks);
  }
  return turns;
}

function ids(turn: Turn | undefined, type: 'tool_use' | 'tool_result'): Set<string> {
  const out = new Set<string>();
  for (const b of turn?.blocks ?? []) {
    if (b.type === 'tool_use' && type === 'tool_use') out.add(b.id);
    if (b.type === 'tool_result' && type === 'tool_result') out.add(b.toolUseId);
  }
  return out;
}

/**
 * Anthropic rejects a tool_use without a tool_result in the very next user
 * message, and a tool_result without its tool_use just before. The engine
 * already strips orphans (docs/reference/rendering.md#messages); this keeps the request valid anyway:
 * an unanswered call is dropped, and a stray result is kept as plain text.
 */
function pairToolBlocks(turns: Turn[]): Turn[] {
  const kept: Turn[] = [];
  for (const [i, turn] of turns.entries()) {
    let blocks: Block[];
    if (turn.role === 'assistant') {
      const answered = turns[i + 1]?.role === 'user' ? ids(turns[i + 1], 'tool_result') : new Set<string>();
      blocks = turn.blocks.filter((b) => b.type !== 'tool_use' || answered.has(b.id));
    } else {
      const asked = turns[i - 1]?.role === 'assistant' ? ids(turns[i - 1], 'tool_use') : new Set<string>();
      blocks = turn.blocks.map((b): Block => {
        if (b.type !== 'tool_result' || asked.has(b.toolUseId)) return b;
        return { type: 'text', text: `Result of ${b.toolName} (${b.toolUseId}):\n${b.content}`, cache: b.cache };
      });
      // Results must lead the user message that answers the calls.
      blocks = [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
    }
    pushMerged(kept, turn.role, blocks);
  }
  return kept;
}

/** Keeps the last MAX_CACHE_MARKERS breakpoints: a later one covers every prefix an earlier one would. */
function capCacheMarkers(system: { cache: boolean }[], turns: Turn[]): void {
  const marked = [...system, ...turns.flatMap((t) => t.blocks)].filter((b) => b.cache);
  for (const b of marked.slice(0, Math.max(0, marked.length - MAX_CACHE_MARKERS))) b.cache = false;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

function toWireBlock(b: Block): ContentBlockParam {
  const cache = b.cache ? { cache_control: EPHEMERAL } : {};
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text, ...cache };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input, ...cache };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: b.toolUseId,
        content: b.content,
        ...(b.isError ? { is_error: true } : {}),
        ...cache,
      };
  }
}

function toWireTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.parameters } as Tool['input_schema'],
  }));
}

export function buildMessagesRequest(req: InferenceRequest): MessageCreateParamsNonStreaming {
  const system = req.system.filter((b) => b.text.trim() !== '').map((b) => ({ text: b.text, cache: b.cache === true }));
  const turns = pairToolBlocks(neutralToTurns(req));
  capCacheMarkers(system, turns);

  const body: MessageCreateParamsNonStreaming = {
    model: parseModelRef(req.model).model,
    max_tokens: req.maxTokens,
    messages: turns.map((t): MessageParam => ({ role: t.role, content: t.blocks.map(toWireBlock) })),
    stream: false,
  };
  if (system.length > 0) {
    body.system = system.map(
      (b): TextBlockParam => ({ type: 'text', text: b.text, ...(b.cache ? { cache_control: EPHEMERAL } : {}) }),
    );
  }
  if (req.tools.length > 0) body.tools = toWireTools(req.tools);
  // The Messages API this SDK targets has no `temperature`, so the request's is not sent.
  setWireFields(body as unknown as Record<string, unknown>, parameterFields(req));
  return body;
}

function stopReasonFor(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'other';
  }
}

export function mapMessageResponse(res: Message): InferenceResponse {
  const texts: string[] = [];
  const parsed: ParsedToolCall[] = [];
  for (const block of res.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') parsed.push(checkToolInput(block.id, block.name, block.input));
  }
  const { toolCalls, invalidToolCalls } = splitToolCalls(parsed);
  const u = res.usage;
  const cacheRead = u?.cache_read_input_tokens ?? 0;
  const cacheWrite = u?.cache_creation_input_tokens ?? 0;
  const prompt = (u?.input_tokens ?? 0) + cacheRead + cacheWrite;
  return {
    text: texts.join('\n'),
    toolCalls,
    invalidToolCalls,
    stopReason: stopReasonFor(res.stop_reason),
    usage: {
      promptTokens: prompt,
      completionTokens: u?.output_tokens ?? 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
    },
    ...(u ? { reportedPromptTokens: prompt } : {}),
  };
}

/** What is wrong with a 2xx answer that is not a usable message, if anything. */
function badMessage(res: unknown): FailureFacts | undefined {
  if (typeof res !== 'object' || res === null) {
    const shown = typeof res === 'string' ? `the body starts with ${JSON.stringify(cutUnits(res, 80))}` : `got ${res}`;
    return { badResponse: true, serverMessage: shown };
  }
  if (!Array.isArray((res as { content?: unknown }).content))
    return { badResponse: true, serverMessage: 'the JSON has no "content" array' };
  return undefined;
}

/**
 * The HTTP status Anthropic gives each error type (https://docs.anthropic.com/en/api/errors), for an
 * error event inside a stream, which comes with the type and no status.
 */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** An error the server sent (an error answer or an error event in the stream), not the stream breaking off. */
function serverSent(err: unknown): boolean {
  return err instanceof sdk().APIError && !(err instanceof sdk().APIConnectionError);
}

function factsFrom(err: unknown): FailureFacts | undefined {
  if (err instanceof sdk().APIUserAbortError) return undefined;
  const stalled = causeOf(err, StreamStalled);
  if (stalled) return { serverMessage: stalled.message, timedOut: true };
  const cut = causeOf(err, StreamCut);
  if (cut) return { serverMessage: cut.message, connectionFailed: true };
  const tooLarge = answerTooLarge(err);
  if (tooLarge) return { serverMessage: tooLarge.message, tooLargeLimit: tooLarge.limit };
  if (err instanceof SyntaxError)
    return { badResponse: true, serverMessage: `the body is not valid JSON (${err.message})` };
  if (err instanceof sdk().APIConnectionTimeoutError) return { serverMessage: 'timed out', timedOut: true };
  if (err instanceof sdk().APIConnectionError) return { serverMessage: causeText(err), connectionFailed: true };
  if (err instanceof sdk().APIError) {
    const status = err.status ?? (err.type ? STATUS_OF_TYPE[err.type] : undefined);
    return {
      ...(status !== undefined ? { status } : {}),
      ...(err.headers ? { headers: err.headers } : {}),
      serverMessage: err.apiMessage ?? err.message,
      code: err.errorCode ?? err.type,
    };
  }
  return undefined;
}

export class AnthropicProvider implements ModelProvider {
  readonly name: string;
  readonly endpoint: string;
  readonly #client: AnthropicSdk;
  #streaming: AnthropicSdk | undefined;
  readonly #opts: AnthropicOptions;

  constructor(opts: AnthropicOptions) {
    this.name = opts.name;
    this.endpoint = displayURL(opts.baseURL);
    this.#opts = opts;
    this.#client = new (sdk())({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL,
      maxRetries: 0,
      timeout: opts.timeoutMs,
      fetch: bufferedFetch(),
    });
  }

  async infer(req: InferenceRequest, opts: InferOptions = {}): Promise<InferenceResponse> {
    const body = buildMessagesRequest(req);
    const signal = opts.signal ? { signal: opts.signal } : {};
    const onText = opts.onText;
    let res: Message;
    let whole: WholeAnswer | undefined;
    try {
      // A caller that reads the text as it comes gets the same reply, streamed (docs/reference/events.md#the-token-channel).
      res = onText
        ? await assembleMessage(
            await this.#streamingClient().messages.create({ ...body, stream: true }, signal),
            onText,
            serverSent,
          )
        : await this.#client.messages.create(body, signal);
    } catch (err) {
      // A server that answers a streamed request whole is read as the whole answer it is.
      ({ whole, res } = wholeAnswerOr<Message>(err, factsFrom, opts.signal, this.#context(req)));
    }
    const bad = badMessage(res);
    if (bad) throw classifyFailure(bad, this.#context(req));
    const reply = mapMessageResponse(res);
    if (whole && onText && reply.text !== '') onText(reply.text);
    return reply;
  }

  /** The client of streamed calls: its fetch passes the body on as it comes, idle at most the request timeout. */
  #streamingClient(): AnthropicSdk {
    this.#streaming ??= new (sdk())({
      apiKey: this.#opts.apiKey,
      baseURL: this.#opts.baseURL,
      maxRetries: 0,
      timeout: this.#opts.timeoutMs,
      fetch: streamingFetch(this.#opts.timeoutMs),
    });
    return this.#streaming;
  }

  #context(req: InferenceRequest): CallContext {
    return callContext(this.name, req.model, this.#opts);
  }
}
