/**
 * The scripted provider: an offline model that replays a script of turns.
 * It is the default for the demo, the tests and the benchmarks. Every answer
 * is a function of the request alone, so a retried call (in this process or
 * another worker) gets the same reply.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { LevError } from '../errors.js';
import type { ToolCall } from '../shapes/content.js';
import type { ModelParameters } from '../shapes/model-parameters.js';
import { cutUnits } from '../truncate.js';
import { parseModelRef } from './builtin-models.js';
import { type ParsedToolCall, parseToolArguments, splitToolCalls } from './parse-tool-args.js';
import type { InferenceRequest, InferenceResponse, InferOptions, InvalidToolCall, ModelProvider } from './provider.js';
import { ProviderError } from './provider-errors.js';
import { passGate } from './scripted-gates.js';
import { loadScriptFile, type Script, type ScriptInput, type ScriptTurn, validateScript } from './scripted-script.js';

/** What the provider answers once the script has no turn left for a request. */
export const SCRIPT_FINISHED_TEXT = 'The script has no more turns; finishing here.';

/** Characters per token in the provider's usage estimate. */
const CHARS_PER_TOKEN = 4;
const SUMMARY_PIECE_CHARS = 24;

export interface ScriptedCall {
  runId: string;
  stage: string;
  turn: number;
  purpose: InferenceRequest['meta']['purpose'];
  attempt: number;
  served_at_ms: number;
  /** sha256 (hex) of what the model was given: the system blocks, the messages, the tool schemas and the reply limit. */
  prompt: string;
  /**
   * How far two calls read the same front, in the order providers read it: sha256 (hex) of the
   * tool schemas, then of the tool schemas and the first system block, and so on to every system
   * block. Equal `prefixes[i]` means the same bytes up to there.
   */
  prefixes: string[];
  /** The names of the tools offered, in order. */
  tools: string[];
  /** The stage's model parameters, when it sets any (docs/providers.md#model-parameters): what a real provider would have been sent. */
  parameters?: ModelParameters;
}

const registry = new Map<string, Script>();
const served: ScriptedCall[] = [];

/** Makes `scripted:<name>` answer from `script` in this process; replaces an earlier registration. */
export function registerScript(name: string, script: ScriptInput): void {
  registry.set(name, validateScript(script, `registered script "${name}"`));
}

export function unregisterScript(name: string): void {
  registry.delete(name);
}

/** Calls served in this process, oldest first. */
export function scriptedCalls(): readonly ScriptedCall[] {
  return served;
}

export function resetScriptedCalls(): void {
  served.length = 0;
}

function looksLikePath(name: string): boolean {
  return name.endsWith('.toml') || name.includes('/') || name.includes('\\');
}

/**
 * `scripted:<name>` resolves to, in order: a script registered under that
 * name, a file when the name looks like a path (relative to the cwd), then
 * the file named by LEVIATH_SCRIPT.
 */
export function resolveScript(name: string, env: NodeJS.ProcessEnv = process.env): Script {
  const registered = registry.get(name);
  if (registered) return registered;
  if (looksLikePath(name)) return loadScriptFile(name);
  const fromEnv = env.LEVIATH_SCRIPT;
  if (fromEnv) return loadScriptFile(fromEnv);
  throw new LevError(
    'scripted-script-missing',
    `No script for "scripted:${name}"; set LEVIATH_SCRIPT to a script file, use "scripted:path/to/script.toml", or give the stage a real model such as "ollama:qwen2.5-coder".`,
  );
}

/**
 * The item id of a fan-out worker from its run id (`<parent>/<encoded item id>`),
 * or undefined for a run that is not a sub-agent.
 */
export function workerItem(runId: string): string | undefined {
  const slash = runId.lastIndexOf('/');
  if (slash < 0) return undefined;
  try {
    return decodeURIComponent(runId.slice(slash + 1));
  } catch {
    return undefined;
  }
}

/** Turns with `item` answer only that item's worker; when a worker has none of its own, the turns without `item` answer it. */
function forItem(turns: ScriptTurn[], item: string | undefined): ScriptTurn[] {
  const own = item === undefined ? [] : turns.filter((t) => t.item === item);
  return own.length > 0 ? own : turns.filter((t) => t.item === undefined);
}

/**
 * Global turns (no `stage`) are indexed by `meta.turn`; a stage that has
 * turns of its own indexes them by `meta.stageTurn`. A fan-out worker whose
 * item has turns of its own (`item`) is answered from those.
 */
export function selectTurn(script: Script, req: InferenceRequest): ScriptTurn | undefined {
  const { meta } = req;
  const item = workerItem(meta.runId);
  const staged = forItem(
    script.turns.filter((t) => t.stage === meta.stage),
    item,
  );
  let list: ScriptTurn[];
  let index: number;
  if (staged.length > 0) {
    if (meta.stageTurn === undefined) {
      throw new LevError(
        'scripted-stage-turn-missing',
        `The script has turns for stage "${meta.stage}" but the request carries no meta.stageTurn; the runtime must set it for per-stage scripts.`,
      );
    }
    list = staged;
    index = meta.stageTurn;
  } else {
    list = forItem(
      script.turns.filter((t) => t.stage === undefined),
      item,
    );
    index = meta.turn;
  }
  if (list.length === 0 || index < 0) return undefined;
  if (script.repeat) return list[index % list.length];
  return list[index];
}

function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function requestChars(req: InferenceRequest): number {
  let chars = 0;
  for (const b of req.system) chars += b.text.length;
  for (const m of req.messages) {
    chars += m.content.length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += JSON.stringify(c.arguments).length;
  }
  if (req.tools.length > 0) chars += JSON.stringify(req.tools).length;
  return chars;
}

function summarise(req: InferenceRequest): string {
  const pieces = req.messages.map((m) => m.content.slice(0, SUMMARY_PIECE_CHARS).replace(/\r?\n/g, ' '));
  const text = `summary of ${req.messages.length} messages: ${pieces.join(' | ')}`;
  return text.slice(0, Math.max(1, req.maxTokens * CHARS_PER_TOKEN));
}

function chooseEdge(script: Script, req: InferenceRequest): string {
  return script.choices?.[req.meta.stage] ?? req.meta.options?.[0] ?? 'DONE';
}

function scriptedToolCalls(
  turn: ScriptTurn,
  req: InferenceRequest,
): { toolCalls: ToolCall[]; invalidToolCalls: InvalidToolCall[] } {
  const parsed: ParsedToolCall[] = (turn.tool_calls ?? []).map((c, i) => {
    const id = `call_${req.meta.turn}_${i}`;
    if (c.arguments_raw !== undefined) return parseToolArguments(id, c.name, c.arguments_raw);
    return { ok: true, call: { id, name: c.name, arguments: c.arguments ?? {} } };
  });
  return splitToolCalls(parsed);
}

function failIfScripted(turn: ScriptTurn, req: InferenceRequest): void {
  const fail = turn.fail;
  if (!fail || req.meta.attempt > fail.attempts) return;
  throw new ProviderError(
    fail.kind,
    `The script fails attempt ${req.meta.attempt} of turn ${req.meta.turn} with "${fail.kind}" on purpose.`,
    { provider: 'scripted', ...(fail.retry_after_ms !== undefined ? { retryAfterMs: fail.retry_after_ms } : {}) },
  );
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Pieces a reply's text streams in over its latency (docs/scripted.md#streaming). */
export const STREAM_PIECES = 8;

/**
 * Waits out the latency; with a reader of the text (`onText`), the text arrives in `STREAM_PIECES`
 * equal pieces, one at the end of each equal share of the latency, so tests can watch it come.
 * `midway` is awaited once half the pieces are out (before the latency, for a caller that does not read).
 */
async function paced(
  text: string,
  latency: number,
  opts: InferOptions,
  midway: () => Promise<void> = async () => {},
): Promise<void> {
  const onText = opts.onText;
  if (!onText || text === '') {
    await midway();
    return sleep(latency, opts.signal);
  }
  const pieces = Math.min(STREAM_PIECES, text.length);
  for (let i = 1; i <= pieces; i++) {
    await sleep(latency / pieces, opts.signal);
    onText(i === pieces ? text : cutUnits(text, Math.ceil((text.length * i) / pieces)));
    // Held with half the text out, a reader is seen to have shown it in part (a turn's `text_gate`).
    if (i === Math.max(1, Math.floor(pieces / 2))) await midway();
  }
}

/** The digest of a request's prompt, so two calls can be told to have read the same bytes without keeping them. */
export function promptDigest(req: Pick<InferenceRequest, 'system' | 'messages' | 'tools' | 'maxTokens'>): string {
  const prompt = JSON.stringify({
    system: req.system,
    messages: req.messages,
    tools: req.tools,
    maxTokens: req.maxTokens,
  });
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

/** `ScriptedCall.prefixes`: one running hash over the tool schemas and then each system block. */
export function prefixDigests(req: Pick<InferenceRequest, 'system' | 'tools'>): string[] {
  const hash = createHash('sha256').update(JSON.stringify(req.tools), 'utf8');
  const digests = [hash.copy().digest('hex')];
  for (const block of req.system) digests.push(hash.update(JSON.stringify(block), 'utf8').copy().digest('hex'));
  return digests;
}

function record(req: InferenceRequest, env: NodeJS.ProcessEnv): void {
  const { runId, stage, turn, purpose, attempt } = req.meta;
  const call: ScriptedCall = {
    runId,
    stage,
    turn,
    purpose,
    attempt,
    served_at_ms: Date.now(),
    prompt: promptDigest(req),
    prefixes: prefixDigests(req),
    tools: req.tools.map((t) => t.name),
    ...(req.parameters ? { parameters: req.parameters } : {}),
  };
  served.push(call);
  const log = env.LEVIATH_SCRIPTED_LOG;
  // One short appendFileSync per call keeps lines whole when several workers share the file.
  if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
}

export class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  async infer(req: InferenceRequest, opts: InferOptions = {}): Promise<InferenceResponse> {
    const script = resolveScript(parseModelRef(req.model).model, this.#env);
    const promptTokens = estimateTokens(requestChars(req));
    let text: string;
    let calls: { toolCalls: ToolCall[]; invalidToolCalls: InvalidToolCall[] } = { toolCalls: [], invalidToolCalls: [] };
    let latency = script.latency_ms ?? 0;
    let reported: number | undefined;
    let textGate: string | undefined;

    if (req.meta.purpose === 'summary') {
      text = summarise(req);
    } else if (req.meta.purpose === 'edge-choice') {
      text = chooseEdge(script, req);
    } else {
      const turn = selectTurn(script, req);
      if (turn) {
        if (turn.gate !== undefined) await passGate(turn.gate, this.#env, opts.signal);
        failIfScripted(turn, req);
        text = turn.text ?? '';
        calls = scriptedToolCalls(turn, req);
        latency = turn.latency_ms ?? latency;
        reported = turn.reported_prompt_tokens;
        textGate = turn.text_gate;
      } else {
        text = SCRIPT_FINISHED_TEXT;
      }
    }

    await paced(text, latency, opts, async () => {
      if (textGate !== undefined) await passGate(textGate, this.#env, opts.signal);
    });
    record(req, this.#env);
    const anyCalls = calls.toolCalls.length + calls.invalidToolCalls.length > 0;
    const argChars = calls.toolCalls.reduce((n, c) => n + JSON.stringify(c.arguments).length, 0);
    return {
      text,
      ...calls,
      stopReason: anyCalls ? 'tool_calls' : 'end',
      usage: {
        promptTokens,
        completionTokens: estimateTokens(text.length + argChars),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      ...(reported !== undefined ? { reportedPromptTokens: reported } : {}),
    };
  }
}
