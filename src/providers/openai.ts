/**
 * OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, OpenRouter,
 * LM Studio) through the official SDK pointed at each server's base URL.
 */

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type OpenAISdk from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { setWireFields } from '../shapes/parameter-wires.js';
import { cutUnits } from '../truncate.js';
import { parseModelRef } from './builtin-models.js';
import { type CallContext, callContext, classifyFailure, displayURL, type FailureFacts } from './classify.js';
import { answerTooLarge, bufferedFetch } from './http.js';
import { assembleChat } from './openai-stream.js';
import { loadSdk } from './optional-sdk.js';
import { parameterFields } from './parameters.js';
import { checkToolInput, type ParsedToolCall, parseToolArguments, splitToolCalls } from './parse-tool-args.js';
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
let loaded: typeof OpenAISdk | undefined;
/** The SDK loads with the first OpenAI-compatible client, so a worker that never calls one never holds it. */
function sdk(): typeof OpenAISdk {
  loaded ??= loadSdk<{ default: typeof OpenAISdk }>(require, 'openai', 'OpenAI-compatible').default;
  return loaded;
}

export interface OpenAICompatibleOptions {
  /** Provider prefix, e.g. `openai` or `ollama`; used in messages. */
  name: string;
  baseURL: string;
  apiKey: string;
  /** Env var the key came from, named when the server refuses it. */
  keyEnv?: string;
  timeoutMs: number;
  /** OpenAI's own API wants `max_completion_tokens`; most compatible servers want `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Send `prompt_cache_key` (OpenAI's API reads it; other servers may refuse unknown fields). */
  promptCacheKey?: boolean;
}

function toWireMessages(req: InferenceRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const system = req.system
    .map((b) => b.text)
    .filter((t) => t.trim() !== '')
    .join('\n\n');
  if (system !== '') out.push({ role: 'system', content: system });
  for (const m of req.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      out.push({
        role: 'assistant',
        content: m.content === '' && calls.length > 0 ? null : m.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      });
    } else {
      out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
    }
  }
  return out;
}

function toWireTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * One key per run and stage: OpenAI routes requests with the same key to
 * the same cache, and a stage's requests share the longest prefixes. Hashed
 * to stay within the field's length limit and to keep names off the wire.
 */
export function promptCacheKey(runId: string, stage: string): string {
  return `lev-${createHash('sha256').update(`${runId}\u0000${stage}`).digest('hex').slice(0, 32)}`;
}

export function buildChatRequest(
  req: InferenceRequest,
  maxTokensField: OpenAICompatibleOptions['maxTokensField'],
  opts: { promptCacheKey?: boolean } = {},
): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: parseModelRef(req.model).model,
    messages: toWireMessages(req),
    stream: false,
    [maxTokensField]: req.maxTokens,
  };
  if (opts.promptCacheKey) body.prompt_cache_key = promptCacheKey(req.meta.runId, req.meta.stage);
  if (req.tools.length > 0) body.tools = toWireTools(req.tools);
  if (req.temperature !== undefined) body.temperature = req.temperature;
  setWireFields(body as unknown as Record<string, unknown>, parameterFields(req));
  return body;
}

function stopReasonFor(finish: string | null | undefined, anyCalls: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  // Some local servers report `stop` even when the reply is a tool call.
  if (anyCalls || finish === 'tool_calls' || finish === 'function_call') return 'tool_calls';
  if (finish === 'stop') return 'end';
  return 'other';
}

export function mapChatResponse(res: ChatCompletion): InferenceResponse {
  const choice = res.choices[0];
  const message = choice?.message;
  const parsed: ParsedToolCall[] = [];
  for (const [i, call] of (message?.tool_calls ?? []).entries()) {
    const id = call.id || `call_${i}`;
    if (call.type === 'function') parsed.push(parseToolArguments(id, call.function.name, call.function.arguments));
    else parsed.push(checkToolInput(id, call.custom.name, call.custom.input));
  }
  const { toolCalls, invalidToolCalls } = splitToolCalls(parsed);
  const usage = res.usage;
  const prompt = usage?.prompt_tokens ?? 0;
  return {
    text: message?.content ?? '',
    toolCalls,
    invalidToolCalls,
    stopReason: stopReasonFor(choice?.finish_reason, parsed.length > 0),
    usage: {
      promptTokens: prompt,
      completionTokens: usage?.completion_tokens ?? 0,
      cacheReadTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
      cacheWriteTokens: 0,
    },
    ...(usage ? { reportedPromptTokens: prompt } : {}),
  };
}

/** What is wrong with a 2xx answer that is not a usable chat completion, if anything. */
export function badCompletion(res: unknown): FailureFacts | undefined {
  if (typeof res !== 'object' || res === null) {
    const shown = typeof res === 'string' ? `the body starts with ${JSON.stringify(cutUnits(res, 80))}` : `got ${res}`;
    return { badResponse: true, serverMessage: shown };
  }
  const choices = (res as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return { badResponse: true, serverMessage: 'the JSON has no "choices" array' };
  if (choices.length === 0) return { emptyAnswer: true, serverMessage: 'the answer had "choices": []' };
  const message = (choices[0] as { message?: unknown } | null)?.message;
  if (typeof message !== 'object' || message === null)
    return { badResponse: true, serverMessage: 'the first choice has no "message" object' };
  return undefined;
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
    const body = err.error as { message?: unknown } | undefined;
    const serverMessage = typeof body?.message === 'string' ? body.message : err.message;
    return {
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.headers ? { headers: err.headers } : {}),
      serverMessage,
      code: typeof err.code === 'string' ? err.code : null,
    };
  }
  return undefined;
}

export class OpenAICompatibleProvider implements ModelProvider {
  readonly name: string;
  readonly endpoint: string;
  readonly #client: OpenAISdk;
  #streaming: OpenAISdk | undefined;
  readonly #opts: OpenAICompatibleOptions;

  constructor(opts: OpenAICompatibleOptions) {
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
    const body = buildChatRequest(req, this.#opts.maxTokensField, {
      promptCacheKey: this.#opts.promptCacheKey === true,
    });
    const signal = opts.signal ? { signal: opts.signal } : {};
    const onText = opts.onText;
    let res: ChatCompletion;
    let whole: WholeAnswer | undefined;
    try {
      // A caller that reads the text as it comes gets the same reply, streamed (docs/reference/events.md#the-token-channel).
      res = onText
        ? await assembleChat(
            await this.#streamingClient().chat.completions.create(
              { ...body, stream: true, stream_options: { include_usage: true } },
              signal,
            ),
            onText,
          )
        : await this.#client.chat.completions.create(body, signal);
    } catch (err) {
      // A server that answers a streamed request whole is read as the whole answer it is.
      ({ whole, res } = wholeAnswerOr<ChatCompletion>(err, factsFrom, opts.signal, this.#context(req)));
    }
    const bad = badCompletion(res);
    if (bad) throw classifyFailure(bad, this.#context(req));
    const reply = mapChatResponse(res);
    if (whole && onText && reply.text !== '') onText(reply.text);
    return reply;
  }

  /** The client of streamed calls: its fetch passes the body on as it comes, idle at most the request timeout. */
  #streamingClient(): OpenAISdk {
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
