/**
 * Google Gemini through the official SDK (`@google/genai`), on the Gemini
 * API's `generateContent`, or `streamGenerateContent` when the caller reads the text as it comes
 * (src/providers/google-stream.ts). The neutral prompt becomes one system
 * instruction and alternating `user` / `model` contents, in which every
 * function call is answered by a function response in the next user turn
 * (docs/providers.md#google-gemini).
 */

import { createRequire } from 'node:module';
import type * as GenAI from '@google/genai';
import { setWireFields } from '../shapes/parameter-wires.js';
import { cutUnits } from '../truncate.js';
import { parseModelRef } from './builtin-models.js';
import { type CallContext, callContext, classifyFailure, displayURL, type FailureFacts } from './classify.js';
import { assembleGenerate } from './google-stream.js';
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
let loaded: typeof GenAI | undefined;
/** The SDK loads with the first Gemini client, so a worker that never calls Gemini never holds it. */
function sdk(): typeof GenAI {
  loaded ??= loadSdk<typeof GenAI>(require, '@google/genai', 'Gemini');
  return loaded;
}

export interface GoogleOptions {
  name: string;
  baseURL: string;
  apiKey: string;
  keyEnv?: string;
  timeoutMs: number;
}

/**
 * Gemini 3 models refuse a function call sent back without the thought
 * signature they issued with it. The runtime keeps no signatures (a tool
 * call is the same neutral record for every provider), so each call carries
 * the value Google documents for history it did not produce itself.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

type Part = GenAI.Part;
type Content = GenAI.Content;

function push(out: Content[], role: 'user' | 'model', parts: Part[]): void {
  if (parts.length === 0) return;
  const last = out.at(-1);
  // Gemini wants the roles to alternate: runs of one role become one content.
  if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
  else out.push({ role, parts });
}

function toContents(req: InferenceRequest): Content[] {
  const out: Content[] = [];
  for (const m of req.messages) {
    if (m.role === 'user') push(out, 'user', m.content === '' ? [] : [{ text: m.content }]);
    else if (m.role === 'assistant') {
      const parts: Part[] = m.content === '' ? [] : [{ text: m.content }];
      for (const c of m.toolCalls ?? [])
        parts.push({ functionCall: { id: c.id, name: c.name, args: c.arguments }, thoughtSignature: SKIP_SIGNATURE });
      push(out, 'model', parts);
    } else {
      push(out, 'user', [
        {
          functionResponse: {
            id: m.toolCallId,
            name: m.toolName,
            response: m.isError ? { error: m.content } : { output: m.content },
          },
        },
      ]);
    }
  }
  return out;
}

function toTools(tools: ToolSpec[]): GenAI.Tool[] {
  if (tools.length === 0) return [];
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: t.name,
        description: t.description,
        parametersJsonSchema: t.parameters,
      })),
    },
  ];
}

/** The SDK's arguments for one inference: what goes on the wire, before the SDK's own renaming. */
export function buildGenerateRequest(req: InferenceRequest): GenAI.GenerateContentParameters {
  const system = req.system
    .map((b) => b.text)
    .filter((t) => t.trim() !== '')
    .join('\n\n');
  const config: GenAI.GenerateContentConfig = { maxOutputTokens: req.maxTokens };
  if (system !== '') config.systemInstruction = { parts: [{ text: system }] };
  const tools = toTools(req.tools);
  if (tools.length > 0) config.tools = tools;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  const params = { model: parseModelRef(req.model).model, contents: toContents(req), config };
  setWireFields(params as unknown as Record<string, unknown>, parameterFields(req));
  return params;
}

function stopReasonFor(finish: string | undefined, anyCalls: boolean): StopReason {
  if (anyCalls) return 'tool_calls';
  if (finish === 'MAX_TOKENS') return 'max_tokens';
  if (finish === 'STOP') return 'end';
  return 'other';
}

export function mapGenerateResponse(res: GenAI.GenerateContentResponse): InferenceResponse {
  const candidate = res.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const parsed: ParsedToolCall[] = [];
  let text = '';
  for (const part of parts) {
    // Thought summaries are the model's reasoning, not its answer.
    if (part.thought) continue;
    if (typeof part.text === 'string') text += part.text;
    if (part.functionCall) {
      const id = part.functionCall.id || `call_${parsed.length}`;
      parsed.push(checkToolInput(id, part.functionCall.name ?? '', part.functionCall.args ?? {}));
    }
  }
  const { toolCalls, invalidToolCalls } = splitToolCalls(parsed);
  const usage = res.usageMetadata;
  const prompt = usage?.promptTokenCount ?? 0;
  return {
    text,
    toolCalls,
    invalidToolCalls,
    stopReason: stopReasonFor(candidate?.finishReason, parsed.length > 0),
    usage: {
      promptTokens: prompt,
      completionTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
      cacheReadTokens: usage?.cachedContentTokenCount ?? 0,
      cacheWriteTokens: 0,
    },
    ...(usage?.promptTokenCount !== undefined ? { reportedPromptTokens: prompt } : {}),
  };
}

/** What is wrong with a 2xx answer that is not a usable generateContent response, if anything. */
export function badGenerate(res: unknown): FailureFacts | undefined {
  if (typeof res !== 'object' || res === null)
    return { badResponse: true, serverMessage: `got ${typeof res === 'string' ? cutUnits(res, 80) : res}` };
  const r = res as GenAI.GenerateContentResponse;
  if (!Array.isArray(r.candidates)) {
    const blocked = r.promptFeedback?.blockReason;
    if (blocked) return { status: 400, serverMessage: `the prompt was blocked (${blocked})` };
    return { badResponse: true, serverMessage: 'the JSON has no "candidates" array' };
  }
  if (r.candidates.length === 0) return { emptyAnswer: true, serverMessage: 'the answer had "candidates": []' };
  return undefined;
}

/** The Gemini API's error body: `{ "error": { "code", "message", "status" } }`, which the SDK passes on as text. */
function serverError(message: string): { message: string; status?: string } {
  const start = message.indexOf('{');
  if (start >= 0) {
    try {
      const body = JSON.parse(message.slice(start)) as { error?: { message?: unknown; status?: unknown } };
      if (typeof body.error?.message === 'string')
        return {
          message: body.error.message,
          ...(typeof body.error.status === 'string' ? { status: body.error.status } : {}),
        };
    } catch {
      // Not JSON: the SDK's own text is the message.
    }
  }
  return { message };
}

function factsFrom(err: unknown): FailureFacts | undefined {
  const stalled = causeOf(err, StreamStalled);
  if (stalled) return { serverMessage: stalled.message, timedOut: true };
  const cut = causeOf(err, StreamCut);
  if (cut) return { serverMessage: cut.message, connectionFailed: true };
  const tooLarge = answerTooLarge(err);
  if (tooLarge) return { serverMessage: tooLarge.message, tooLargeLimit: tooLarge.limit };
  if (err instanceof sdk().ApiError) {
    const { message, status } = serverError(err.message);
    return { status: err.status, serverMessage: message, code: status ?? null };
  }
  if (err instanceof SyntaxError)
    return { badResponse: true, serverMessage: `the body is not valid JSON (${err.message})` };
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError'))
    return { serverMessage: 'timed out', timedOut: true };
  if (err instanceof TypeError) return { serverMessage: causeText(err), connectionFailed: true };
  return undefined;
}

function client(opts: GoogleOptions, fetch: typeof globalThis.fetch): GenAI.GoogleGenAI {
  return new (sdk().GoogleGenAI)({
    apiKey: opts.apiKey,
    httpOptions: {
      baseUrl: opts.baseURL,
      timeout: opts.timeoutMs,
      // Temporal retries the activity; the SDK must not retry inside it.
      retryOptions: { attempts: 1 },
      fetch,
    },
  });
}

export class GoogleProvider implements ModelProvider {
  readonly name: string;
  readonly endpoint: string;
  readonly #client: GenAI.GoogleGenAI;
  #streaming: GenAI.GoogleGenAI | undefined;
  readonly #opts: GoogleOptions;

  constructor(opts: GoogleOptions) {
    this.name = opts.name;
    this.endpoint = displayURL(opts.baseURL);
    this.#opts = opts;
    this.#client = client(opts, bufferedFetch());
  }

  async infer(req: InferenceRequest, opts: InferOptions = {}): Promise<InferenceResponse> {
    const params = buildGenerateRequest(req);
    if (opts.signal) params.config = { ...params.config, abortSignal: opts.signal };
    const onText = opts.onText;
    let res: GenAI.GenerateContentResponse;
    let whole: WholeAnswer | undefined;
    try {
      // A caller that reads the text as it comes gets the same reply, streamed (docs/reference/events.md#the-token-channel).
      res = onText
        ? await assembleGenerate(
            await this.#streamingClient().models.generateContentStream({
              ...params,
              // Temporal retries the activity; the SDK must not resume a broken stream inside it.
              config: { ...params.config, automaticContinuation: false },
            }),
            onText,
            (err) => err instanceof sdk().ApiError,
          )
        : await this.#client.models.generateContent(params);
    } catch (err) {
      // A server that answers a streamed request whole is read as the whole answer it is.
      ({ whole, res } = wholeAnswerOr<GenAI.GenerateContentResponse>(err, factsFrom, opts.signal, this.#context(req)));
    }
    const bad = badGenerate(res);
    if (bad) throw classifyFailure(bad, this.#context(req));
    const reply = mapGenerateResponse(res);
    if (whole && onText && reply.text !== '') onText(reply.text);
    return reply;
  }

  /** The client of streamed calls: its fetch passes the body on as it comes, idle at most the request timeout. */
  #streamingClient(): GenAI.GoogleGenAI {
    this.#streaming ??= client(this.#opts, streamingFetch(this.#opts.timeoutMs));
    return this.#streaming;
  }

  #context(req: InferenceRequest): CallContext {
    return callContext(this.name, req.model, this.#opts);
  }
}
