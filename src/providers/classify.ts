/**
 * Turns what an SDK reported about a failed call into a ProviderError with a
 * sentence saying what to do. Both SDKs expose the same facts (status,
 * headers, server message, whether the socket failed or timed out); each
 * adapter extracts them and this module decides the class.
 */
import { clipUnits } from '../truncate.js';
import { parseModelRef } from './builtin-models.js';
import { ProviderError, type ProviderErrorKind, parseRetryAfter, redactSecrets } from './provider-errors.js';

export interface FailureFacts {
  status?: number;
  headers?: Headers;
  /** The server's own explanation, or the transport error's message. */
  serverMessage: string;
  /** A machine code from the error body, e.g. OpenAI's `context_length_exceeded`. */
  code?: string | null;
  timedOut?: boolean;
  /** The request never produced a response (refused, reset, DNS). */
  connectionFailed?: boolean;
  /** A 2xx answer that is not the API's JSON (an HTML page, malformed JSON, a wrong shape). */
  badResponse?: boolean;
  /** A well-formed answer with nothing in it (`choices: []`). */
  emptyAnswer?: boolean;
  /** The answer body passed this many bytes and was refused. */
  tooLargeLimit?: number;
}

export interface CallContext {
  provider: string;
  model: string;
  baseURL: string;
  /** Env var holding the key, named in the advice for auth failures. */
  keyEnv?: string;
  timeoutMs: number;
  secrets: readonly (string | undefined)[];
}

/** The context a provider adapter reports a failed call of `model` with: its endpoint, and its key to redact. */
export function callContext(
  provider: string,
  model: string,
  opts: { baseURL: string; timeoutMs: number; apiKey: string; keyEnv?: string },
): CallContext {
  return {
    provider,
    model: parseModelRef(model).model,
    baseURL: opts.baseURL,
    timeoutMs: opts.timeoutMs,
    secrets: [opts.apiKey],
    ...(opts.keyEnv ? { keyEnv: opts.keyEnv } : {}),
  };
}

const CONTEXT_LENGTH_CODES = new Set(['context_length_exceeded', 'string_above_max_length']);
const CONTEXT_LENGTH_TEXT =
  /prompt is too long|maximum context length|context[ _-]?length|context window|too many (input )?tokens|input is too long|exceeds? the (model'?s? )?(max|limit)/i;

export function looksLikeContextLength(facts: FailureFacts): boolean {
  if (facts.code && CONTEXT_LENGTH_CODES.has(facts.code)) return true;
  if (facts.status === 413) return true;
  return (facts.status === 400 || facts.status === 422) && CONTEXT_LENGTH_TEXT.test(facts.serverMessage);
}

function kindFor(facts: FailureFacts): ProviderErrorKind {
  if (facts.tooLargeLimit !== undefined) return 'answer-too-large';
  if (facts.badResponse) return 'bad-response';
  if (facts.emptyAnswer) return 'empty-answer';
  if (facts.timedOut) return 'timeout';
  if (facts.status === undefined) return 'connection';
  if (looksLikeContextLength(facts)) return 'context-length';
  const s = facts.status;
  if (s === 401) return 'auth';
  if (s === 403) return 'forbidden';
  if (s === 404) return 'not-found';
  if (s === 408) return 'timeout';
  if (s === 429) return 'rate-limit';
  if (s === 409 || s >= 500) return 'server';
  return 'bad-request';
}

/** Drops credentials a base URL may carry (`https://user:pass@host`). */
export function displayURL(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

function clip(text: string, max = 400): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return clipUnits(oneLine, max);
}

function retryPhrase(retryAfterMs: number | undefined): string {
  if (retryAfterMs === undefined) return 'The call will be retried with backoff.';
  return `The call will be retried after ${(retryAfterMs / 1000).toFixed(retryAfterMs % 1000 === 0 ? 0 : 1)}s, as the provider asked.`;
}

const LABELS: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  ollama: 'Ollama',
  openrouter: 'OpenRouter',
  vllm: 'vLLM',
  lmstudio: 'LM Studio',
};

export function classifyFailure(facts: FailureFacts, ctx: CallContext): ProviderError {
  const kind = kindFor(facts);
  const who = LABELS[ctx.provider] ?? ctx.provider;
  const where = displayURL(ctx.baseURL);
  const http = facts.status !== undefined ? ` (HTTP ${facts.status})` : '';
  const said = clip(facts.serverMessage) || 'no explanation given';
  const retryAfterMs =
    kind === 'rate-limit' || kind === 'server' || kind === 'timeout' ? parseRetryAfter(facts.headers) : undefined;

  // Retryable classes end with a retry promise kept apart, so the last attempt's message can drop it.
  let message: string;
  let retryNote: string | undefined;
  switch (kind) {
    case 'bad-request':
      message = `${who} rejected the request${http}: ${said}. Check the model name and the stage's model settings; retrying will not help.`;
      break;
    case 'auth':
      message = `${who} refused the credentials${http}: ${said}. Set a valid ${ctx.keyEnv ?? 'API key'} for ${where}.`;
      break;
    case 'forbidden':
      message = `${who} denied access${http}: ${said}. The key lacks access to model "${ctx.model}"; use another model or key.`;
      break;
    case 'not-found':
      message = `${who} has no such resource${http}: ${said}. Check the model name "${ctx.model}" and the base URL ${where}.`;
      break;
    case 'context-length':
      message = `The prompt does not fit model "${ctx.model}"${http}: ${said}. Lower the region budgets or set the model's context_window under [models] in the blueprint.`;
      break;
    case 'rate-limit':
      message = `${who} is rate limiting${http}: ${said}.`;
      retryNote = retryPhrase(retryAfterMs);
      break;
    case 'server':
      message = `${who} failed on its side${http}: ${said}.`;
      retryNote = retryPhrase(retryAfterMs);
      break;
    case 'timeout':
      message = `${who} at ${where} did not answer within ${ctx.timeoutMs} ms; raise LEVIATH_PROVIDER_TIMEOUT_MS for slow models.`;
      retryNote = 'The call will be retried.';
      break;
    case 'connection':
      message = `Could not reach ${who} at ${where}: ${said}. Check that the server is running and the base URL is right.`;
      retryNote = 'The call will be retried.';
      break;
    case 'bad-response':
      message = `${who} at ${where} answered with something that is not a ${ctx.provider === 'anthropic' ? 'message' : 'chat completion'}${http}: ${said}. Check that the base URL points at the API and not at a web page or a proxy.`;
      retryNote = 'The call will be retried.';
      break;
    case 'empty-answer':
      message = `${who} answered model "${ctx.model}" with no choices: ${said}.`;
      retryNote = 'The call will be retried.';
      break;
    case 'script-failed':
      // Only a script provider's own failures have this class (src/providers/script-contract.ts).
      message = `The provider script of ${who} failed: ${said}. Fix the script.`;
      break;
    case 'answer-too-large':
      message = `${who} at ${where} sent an answer larger than ${facts.tooLargeLimit} bytes, which was refused; retrying will not help, so check the server and the model's output limit.`;
      break;
  }
  return new ProviderError(kind, redactSecrets(message, ctx.secrets), {
    provider: ctx.provider,
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(retryNote ? { retryNote } : {}),
  });
}
