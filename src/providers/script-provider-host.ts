/**
 * What a provider script may call besides the interpreter's built-ins
 * (docs/reference/script-providers.md#host-functions): the original's
 * provider host functions. `http_get` and `http_post` reach the network, so
 * a call of one halts the script and the provider performs it, as a script
 * tool's calls are performed (src/tools/script-run.ts); the rest answer at
 * once. A failed request reaches the script as a thrown map
 * `#{ kind, status, message, retry_after }`, which it may catch, and which
 * classifies the failure when it does not.
 */
import { RhaiHalt, type RhaiHost, RhaiHostError } from '../rhai/index.js';
import { encodeUri } from '../tools/script-host.js';
import { clipUnits } from '../truncate.js';
import { AnswerTooLarge, MAX_ANSWER_BYTES, readWhole } from './http.js';
import { causeText } from './transport.js';

/** The functions that reach the network; each halts the script until the provider has performed it. */
export const PROVIDER_IO_FUNCTIONS = ['http_get', 'http_post'] as const;
export type ProviderIoFunction = (typeof PROVIDER_IO_FUNCTIONS)[number];

export interface ProviderHostRequest {
  fn: ProviderIoFunction;
  url: string;
  body?: string;
  headers: Record<string, string>;
}

/** A performed request: the body text, or the error map the script sees thrown. */
export type ProviderHostAnswer = { ok: true; value: string } | { ok: false; error: Record<string, unknown> };

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Characters per token `count_tokens_heuristic` assumes for each hint. */
const CHARS_PER_TOKEN: Record<string, number> = { openai: 4, anthropic: 3.5, gemini: 4, general: 4 };

/** The `data:` payload of one SSE event, parsed as JSON when it is; `()` for `[DONE]` or an event without data. */
export function parseSse(chunk: string): unknown {
  const data = chunk
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''))
    .join('\n');
  if (data === '' || data.trim() === '[DONE]') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/** The pure helpers, and `env_var`, which reads the worker's environment. */
export function providerHelpers(env: NodeJS.ProcessEnv, readVars: Set<string>): RhaiHost {
  const text = (v: unknown) => (typeof v === 'string' ? v : String(v ?? ''));
  return {
    encode_uri: ([s]) => encodeUri(text(s)),
    encode_base64: ([s]) => Buffer.from(text(s), 'utf8').toString('base64'),
    decode_base64: ([s]) => Buffer.from(text(s), 'base64').toString('utf8'),
    parse_sse: ([s]) => parseSse(text(s)),
    count_tokens_heuristic: ([s, hint]) => Math.ceil(text(s).length / (CHARS_PER_TOKEN[text(hint)] ?? 4)),
    env_var: ([name]) => {
      const value = env[text(name)];
      // Long enough to be a key: removed from failure messages. A short value would garble them.
      if (value !== undefined && value.length >= 8) readVars.add(value);
      return value === '' ? undefined : value;
    },
    stream_request: () => {
      throw new RhaiHostError(
        'stream_request is not available here: Leviath calls inference(state, request), never stream, so make the request with http_post',
      );
    },
  };
}

const SHAPES: Record<ProviderIoFunction, string> = {
  http_get: 'http_get(url [, headers])',
  http_post: 'http_post(url, body [, headers])',
};

function headersOf(v: unknown): Record<string, string> {
  return isMap(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]))
    : {};
}

/** The request a call asks for, or why its arguments do not fit. */
function requestOf(fn: ProviderIoFunction, args: readonly unknown[]): ProviderHostRequest | string {
  const [url, second, third] = args;
  const problem = `Function not found: ${fn} with these arguments; it is called as ${SHAPES[fn]}`;
  if (typeof url !== 'string') return problem;
  if (fn === 'http_get') {
    if (args.length > 2 || (second !== undefined && !isMap(second))) return problem;
    return { fn, url, headers: headersOf(second) };
  }
  if (typeof second !== 'string' || args.length > 3 || (third !== undefined && !isMap(third))) return problem;
  return { fn, url, body: second, headers: headersOf(third) };
}

/**
 * The network functions of one run of the script: answered from `journal` in order, halting at
 * the first call it has no answer for. `offline` (for `initialize`) refuses them.
 */
export function networkFunctions(
  journal: readonly ProviderHostAnswer[],
  seen: { next: number },
  offline: boolean,
): RhaiHost {
  const io = (fn: ProviderIoFunction) => (args: unknown[]) => {
    const request = requestOf(fn, args);
    if (typeof request === 'string') throw new RhaiHostError(request);
    if (offline)
      throw new RhaiHostError(`${fn} is not available in initialize, which runs offline; make requests in inference`);
    const answer = journal[seen.next++];
    if (answer === undefined) throw new RhaiHalt(`waiting for ${fn}`, request);
    if (answer.ok) return answer.value;
    throw new RhaiHostError(String(answer.error.message), answer.error);
  };
  return Object.fromEntries(PROVIDER_IO_FUNCTIONS.map((fn) => [fn, io(fn)]));
}

/** Performs one request; never throws. A non-2xx answer is an error map carrying its status. */
export async function performRequest(
  req: ProviderHostRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ProviderHostAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await readWhole(
      await fetch(req.url, {
        method: req.fn === 'http_get' ? 'GET' : 'POST',
        headers: req.headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      }),
      MAX_ANSWER_BYTES,
    );
    const text = await res.text();
    if (res.ok) return { ok: true, value: text };
    const message = `HTTP ${res.status}: ${clipUnits(text.replace(/\s+/g, ' ').trim(), 400) || res.statusText}`;
    if (res.status === 429) {
      const after = Number(res.headers.get('retry-after'));
      return {
        ok: false,
        error: {
          kind: 'rate_limited',
          status: 429,
          message,
          ...(Number.isSafeInteger(after) && after > 0 ? { retry_after: after } : {}),
        },
      };
    }
    return { ok: false, error: { kind: 'api', status: res.status, message } };
  } catch (err) {
    if (err instanceof AnswerTooLarge) return { ok: false, error: { kind: 'api', message: err.message } };
    if (timeout.aborted && !signal?.aborted)
      return {
        ok: false,
        error: { kind: 'transport', timed_out: true, message: `no answer within ${timeoutMs} ms from ${req.url}` },
      };
    return { ok: false, error: { kind: 'transport', message: `${req.fn} ${req.url}: ${causeText(err)}` } };
  }
}
