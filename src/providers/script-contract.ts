/**
 * The contract of a script provider (docs/reference/script-providers.md), as
 * pure functions: the `// @key value` lines of its script, the request map its
 * `inference(state, request)` receives, the reply it returns read back into
 * the neutral response, and what it threw read as a provider failure. The
 * shapes are the original Leviath's, so its provider scripts run unchanged.
 */
import type { PromptMessage } from '../shapes/content.js';
import { type CallContext, classifyFailure } from './classify.js';
import { checkToolInput, type ParsedToolCall, parseToolArguments, splitToolCalls } from './parse-tool-args.js';
import type { InferenceRequest, InferenceResponse, StopReason, Usage } from './provider.js';
import { ProviderError, redactSecrets } from './provider-errors.js';

/** The two functions every provider script defines, with their arities. */
export const REQUIRED_FUNCTIONS = [
  { name: 'initialize', arity: 1, shape: 'initialize(config)' },
  { name: 'inference', arity: 2, shape: 'inference(state, request)' },
] as const;

/** A `// @key value` line of the script's leading comments. */
const META_LINE = /^\s*\/\/\s*@([A-Za-z_][\w-]*)\s*(.*?)\s*$/;

/** The `// @key value` lines at the top of a script, before its first line of code. */
export function readProviderMeta(source: string): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const line of source.split(/\r?\n/)) {
    const m = META_LINE.exec(line);
    if (m?.[1] !== undefined) meta[m[1]] = m[2] ?? '';
    else if (line.trim() !== '' && !line.trim().startsWith('//')) break;
  }
  return meta;
}

/** A positive whole number written in a `// @key value` line, else undefined. */
export function metaInteger(meta: Record<string, string>, key: string): number | undefined {
  const n = Number(meta[key]?.replace(/_/g, ''));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

type Block = Record<string, unknown>;

/** The original's message shape: a string on plain turns, content blocks around tool work. */
function scriptMessages(messages: readonly PromptMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const mark = (m: PromptMessage) => (m.cache ? { cache_breakpoint: true } : {});
  for (const m of messages) {
    if (m.role === 'tool') {
      const block: Block = {
        type: 'tool_result',
        tool_use_id: m.toolCallId,
        content: m.content,
        is_error: !!m.isError,
      };
      // Consecutive results answer one assistant turn: they travel in one user message, as there.
      const last = out.at(-1);
      if (last?.role === 'user' && Array.isArray(last.content) && last.tool_results === true) {
        (last.content as Block[]).push(block);
        Object.assign(last, mark(m));
      } else out.push({ role: 'user', content: [block], tool_results: true, ...mark(m) });
      continue;
    }
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      const blocks: Block[] = m.content !== '' ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
      out.push({ role: 'assistant', content: blocks, ...mark(m) });
      continue;
    }
    out.push({ role: m.role, content: m.content, ...mark(m) });
  }
  // The grouping flag is ours alone; the script sees the original's keys only.
  for (const m of out) delete m.tool_results;
  return out;
}

/**
 * What `inference(state, request)` receives. Blocks carry no region facts here, so each is
 * `region: ""` and `volatility: "rewritten"`, the pessimistic value the original gives a block
 * that declared nothing; `cache_hint` is `"Always"` after a block where Leviath places a cache
 * marker, else `"Never"`.
 */
export function scriptRequest(
  req: InferenceRequest,
  extra: Record<string, unknown>,
  timeoutMs: number,
): Record<string, unknown> {
  const model = req.model.includes(':') ? req.model.slice(req.model.indexOf(':') + 1) : req.model;
  const temperature = req.parameters?.temperature ?? req.temperature;
  return {
    system: req.system.map((b) => ({
      text: b.text,
      cache_hint: b.cache ? 'Always' : 'Never',
      region: '',
      volatility: 'rewritten',
    })),
    messages: scriptMessages(req.messages),
    tools: req.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    model,
    max_tokens: req.maxTokens,
    ...(temperature !== undefined ? { temperature } : {}),
    request_timeout_secs: Math.ceil(timeoutMs / 1000),
    extra,
  };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A count the script reported: a non-negative whole number, else 0. */
function count(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}

/** `finish_reason` in Leviath's spelling or the common wire ones; anything else is a complete reply. */
export function stopReasonOf(reason: unknown): StopReason {
  switch (reason) {
    case 'ToolCall':
    case 'tool_calls':
    case 'tool_use':
      return 'tool_calls';
    case 'TokenLimit':
    case 'length':
    case 'max_tokens':
      return 'max_tokens';
    default:
      // `Complete`, `Stop`, `stop`, `stop_sequence`, `end_turn`: the model finished.
      return 'end';
  }
}

/** `tokens_used`: the counts it names, 0 for the rest; `total_tokens` alone reads as the prompt's. */
export function usageOf(tokens: unknown): { usage: Usage; reported?: number } {
  const t = isMap(tokens) ? tokens : {};
  const prompt = count(t.prompt_tokens);
  const completion = count(t.completion_tokens);
  const usage: Usage = {
    promptTokens: prompt,
    completionTokens: completion,
    cacheReadTokens: Math.min(count(t.cached_tokens), prompt),
    cacheWriteTokens: Math.min(count(t.cache_write_tokens), prompt),
  };
  return prompt > 0 ? { usage, reported: prompt } : { usage };
}

/** One `tool_calls` entry: arguments as a map, or (leniently) as the JSON text of one. */
function toolCallOf(entry: unknown, i: number, turn: number): ParsedToolCall {
  const e = isMap(entry) ? entry : {};
  const id = typeof e.id === 'string' && e.id !== '' ? e.id : `script_call_${turn}_${i}`;
  const name = typeof e.name === 'string' ? e.name : '';
  if (typeof e.arguments === 'string') return parseToolArguments(id, name, e.arguments);
  return checkToolInput(id, name, e.arguments ?? {});
}

/**
 * The map `inference` returned, as the neutral response; undefined when it is no map. Missing
 * fields default as in the original: no text, no calls, no counts, a complete reply.
 */
export function responseOf(value: unknown, turn: number): InferenceResponse | undefined {
  if (!isMap(value)) return undefined;
  const calls = Array.isArray(value.tool_calls) ? value.tool_calls.map((c, i) => toolCallOf(c, i, turn)) : [];
  const { toolCalls, invalidToolCalls } = splitToolCalls(calls);
  const { usage, reported } = usageOf(value.tokens_used);
  return {
    text: typeof value.content === 'string' ? value.content : '',
    toolCalls,
    invalidToolCalls,
    stopReason: stopReasonOf(value.finish_reason),
    usage,
    ...(reported !== undefined ? { reportedPromptTokens: reported } : {}),
  };
}

/** The `HTTP 503` a message names, for an `api` error thrown without its status. */
function statusIn(message: string): number | undefined {
  const m = /\bHTTP (\d{3})\b/.exec(message);
  return m?.[1] ? Number(m[1]) : undefined;
}

/**
 * What the script threw (a map `#{ message, transient, kind, status, retry_after }`, or any
 * value), as the provider failure the runtime retries or not. A `kind` of `rate_limited`,
 * `transport`, `server`, `api` or `invalid_response` names the class; else `transient: true` is a
 * retried failure and anything else a permanent one. The host functions' own HTTP failures are
 * such maps, with the status.
 */
export function thrownFailure(thrown: unknown, raw: string, ctx: CallContext): ProviderError {
  const init = { provider: ctx.provider };
  // The script may throw what it was given: its key never reaches a failure message.
  const fallback = redactSecrets(raw, ctx.secrets);
  if (!isMap(thrown))
    return new ProviderError(
      'script-failed',
      `The provider script of ${ctx.provider} failed: ${typeof thrown === 'string' ? redactSecrets(thrown, ctx.secrets) : fallback}. Fix the script, or its settings in [model_providers.${ctx.provider}] of your config.`,
      init,
    );
  const message =
    typeof thrown.message === 'string' && thrown.message !== '' ? redactSecrets(thrown.message, ctx.secrets) : fallback;
  const status = count(thrown.status) || undefined;
  const retryAfter = count(thrown.retry_after);
  const headers = retryAfter > 0 ? new Headers({ 'retry-after': String(retryAfter) }) : undefined;
  switch (thrown.kind) {
    case 'rate_limited':
      return classifyFailure({ status: 429, serverMessage: message, ...(headers ? { headers } : {}) }, ctx);
    case 'transport':
      return classifyFailure({ serverMessage: message, timedOut: thrown.timed_out === true }, ctx);
    case 'server':
      return classifyFailure({ status: status ?? 500, serverMessage: message, ...(headers ? { headers } : {}) }, ctx);
    case 'invalid_response':
      return classifyFailure({ badResponse: true, serverMessage: message }, ctx);
    case 'api': {
      const s = status ?? statusIn(message);
      if (s !== undefined) return classifyFailure({ status: s, serverMessage: message }, ctx);
      return new ProviderError(
        'bad-request',
        `${ctx.provider} rejected the request: ${message}. Check the model name and the stage's model settings; retrying will not help.`,
        init,
      );
    }
  }
  if (thrown.transient === true)
    return new ProviderError('server', `The provider script of ${ctx.provider} failed: ${message}.`, {
      ...init,
      retryNote: 'The call will be retried with backoff.',
    });
  return new ProviderError(
    'script-failed',
    `The provider script of ${ctx.provider} failed: ${message}. Fix the script, or its settings in [model_providers.${ctx.provider}] of your config.`,
    init,
  );
}
