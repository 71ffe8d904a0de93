/**
 * Drives the region engine through a scripted session the way a stage
 * workflow does, sends every turn's prompt through the real OpenAI and
 * Anthropic adapters to a local recording server, and compares each recorded
 * body with the previous one (how much a provider's prompt cache could
 * reuse). Shared by `npm run bench -- cache` and `npm run bench -- shedding`.
 */
import { deterministicSummary } from '../src/context/deterministic-summary.js';
import { enterStage } from '../src/context/enter-stage.js';
import type { EngineEnv } from '../src/context/kinds/custom.js';
import { maintain } from '../src/context/maintenance.js';
import { contentText, regionTokens } from '../src/context/measure.js';
import { BEGIN_MESSAGE, renderPrompt, systemBlockText } from '../src/context/render.js';
import { type EngineOp, runSync } from '../src/context/requests.js';
import { routeToolResult } from '../src/context/routing.js';
import { seedRegion } from '../src/context/seed-fit.js';
import { createRunState, visibleRegions } from '../src/context/state.js';
import { applyContextTool } from '../src/context/tools.js';
import { applyTransform } from '../src/context/transforms.js';
import { writeEntry } from '../src/context/write.js';
import { BUILTIN_MODELS, getProvider, type InferenceRequest, parseModelRef } from '../src/providers/index.js';
import { stageToolSpecs } from '../src/runtime/node/inference.js';
import { grantNote, offersRunTools } from '../src/runtime/run-tools.js';
import type { PromptMessage, ToolCall } from '../src/shapes/content.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import { countTokens } from '../src/tokens/count.js';
import { makeSyncHandler } from '../src/tokens/exact-answers.js';
import { CONTEXT_TOOLS } from '../src/tools/builtin-names.js';
import { stageTools } from '../src/tools/grants.js';
import { toolSpecs } from '../src/tools/specs.js';
import {
  ANTHROPIC_MIN_CACHED,
  AnthropicCache,
  anthropicSegments,
  type CacheCharge,
  cost,
  openaiCharge,
  openaiSegments,
  prefixShare,
  type Segment,
  tokensOf,
} from './prefix.js';
import { type Recorded, startRecordingServer } from './recording-server.js';

export const OPENAI_MODEL = 'openai:gpt-4.1';
/** Priced in the model table (reads 0.1x, 5-minute writes 1.25x the input price). */
export const ANTHROPIC_MODEL = 'anthropic:claude-sonnet-5-5';

export interface Turn {
  /** The stage this turn starts, through the current stage's edge to it. */
  enter?: string;
  say: string;
  call?: { name: string; args: Record<string, unknown> };
  /** Size in tokens of a read_file result. */
  file?: number;
}

export interface Row {
  turn: number;
  tokens: number;
  /** Share of this prompt in its longest common prefix with the previous one. */
  share?: number;
  /** Best case: the whole previous request reused, so only what this request adds is new. */
  bound?: number;
  /** Share of the previous prompt that this one repeats as its prefix. */
  kept?: number;
  systemKept?: number;
  anthropicShare?: number;
  /** Where this request first differs from the previous one (Anthropic blocks). */
  firstChange?: string;
  /**
   * The cache reads every block before the first change: a change costs at
   * most the blocks after it. Undefined when that prefix is under
   * Anthropic's minimum cacheable size.
   */
  costsOnlyAfter?: boolean;
  /** Tokens of the tail message, when the request ends in one. */
  tail: number;
  openai: CacheCharge;
  anthropic: CacheCharge;
}

export interface Session {
  bp: Blueprint;
  stage: string;
  task: string;
  turns: readonly Turn[];
  /** What a tool other than a context tool answers. */
  toolOutput: (turn: Turn) => string;
}

export interface SessionResult {
  rows: Row[];
  /**
   * The same session as a flat list: the task pinned in the system section and one conversation
   * that receives every result, with the same tools and replies (the baseline of issue 42).
   */
  flatRows: Row[];
  /** Turns (1-based) that a compaction preceded. */
  compactions: number[];
  /** `turn region tokens/budget` for each request that held a region over its budget. */
  overBudget: string[];
}

function openaiReply(turn: Turn, i: number): unknown {
  const calls = turn.call
    ? [
        {
          id: `call_${i}`,
          type: 'function',
          function: { name: turn.call.name, arguments: JSON.stringify(turn.call.args) },
        },
      ]
    : undefined;
  return {
    id: `chatcmpl-${i}`,
    object: 'chat.completion',
    created: 0,
    model: parseModelRef(OPENAI_MODEL).model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.say, ...(calls ? { tool_calls: calls } : {}) },
        finish_reason: calls ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 20, total_tokens: 20 },
  };
}

function anthropicReply(turn: Turn, i: number): unknown {
  return {
    id: `msg_${i}`,
    type: 'message',
    role: 'assistant',
    model: parseModelRef(ANTHROPIC_MODEL).model,
    content: [
      { type: 'text', text: turn.say },
      ...(turn.call ? [{ type: 'tool_use', id: `call_${i}`, name: turn.call.name, input: turn.call.args }] : []),
    ],
    stop_reason: turn.call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 20 },
  };
}

/** Labels the last segment `tail` when the request ended in the tail. */
function markTail(segments: Segment[], tail: boolean): Segment[] {
  const last = segments[segments.length - 1];
  if (tail && last) segments[segments.length - 1] = { ...last, label: 'tail' };
  return segments;
}

/** Counts the blueprint's stage prompts as loading for a run does. */
export function countStagePrompts(bp: Blueprint): Blueprint {
  const count = countWith();
  return {
    ...bp,
    stages: bp.stages.map((s) =>
      s.systemPrompt !== undefined ? { ...s, systemPromptTokens: count(s.systemPrompt) } : s,
    ),
  };
}

function handlerFor() {
  return makeSyncHandler('o200k_base', (region, entries, limit) => ({
    ok: true,
    text: deterministicSummary(region, entries, limit),
  }));
}

function countWith(): (text: string) => number {
  const handler = handlerFor();
  return (text) => handler({ type: 'count', text }) as number;
}

export async function runSession(session: Session): Promise<SessionResult> {
  const { bp, stage, turns } = session;
  const handler = handlerFor();
  const count = (text: string) => handler({ type: 'count', text }) as number;
  const env: EngineEnv = { now: 0 };
  const sync = <T>(op: EngineOp<T>): T => runSync(op, handler);
  const state = createRunState(bp);
  const entered = sync(enterStage(state, bp, stage, env));
  if (!entered.ok) throw new Error(entered.message);
  const taskRegion = bp.regions.find((r) => r.name === 'task') ? 'task' : 'system';
  sync(
    seedRegion(state, taskRegion, [{ content: session.task, tokens: count(session.task) }], env, {
      replaceSeeded: true,
    }),
  );

  let turnIndex = 0;
  const respond = (req: Recorded) => {
    const turn = turns[turnIndex]!;
    return req.url.includes('/chat/completions') ? openaiReply(turn, turnIndex) : anthropicReply(turn, turnIndex);
  };
  const server = await startRecordingServer(respond);
  const flatServer = await startRecordingServer(respond);
  const providers = (url: string) => {
    const providerEnv = {
      OPENAI_API_KEY: 'bench',
      OPENAI_BASE_URL: `${url}/v1`,
      ANTHROPIC_API_KEY: 'bench',
      ANTHROPIC_BASE_URL: url,
    };
    return [getProvider(OPENAI_MODEL, providerEnv), getProvider(ANTHROPIC_MODEL, providerEnv)] as const;
  };
  const [openai, anthropic] = providers(server.url);
  const [flatOpenai, flatAnthropic] = providers(flatServer.url);
  let current = stage;
  // The regions' requests offer what a run's turns offer ([runtime] stable_tools); the flat list its stage's own.
  const turnTools = (name: string) => stageToolSpecs(bp, name, undefined, offersRunTools(bp, name));
  const noteOf = (name: string) => (offersRunTools(bp, name) ? grantNote(bp, name) : undefined);
  const toolsOf = (name: string) => toolSpecs(stageTools(bp, name));
  let tools = turnTools(stage);
  let note = noteOf(stage);
  let flatToolList = toolsOf(stage);
  const compactions: number[] = [];
  const tails: boolean[] = [];
  const overBudget: string[] = [];
  const flat: PromptMessage[] = [{ role: 'user', content: BEGIN_MESSAGE }];
  const entryPrompt = bp.stages.find((s) => s.name === stage)?.systemPrompt?.trim();
  const flatSystem = [{ text: `## task\n${session.task}${entryPrompt ? `\n\n${entryPrompt}` : ''}`, cache: true }];

  try {
    for (turnIndex = 0; turnIndex < turns.length; turnIndex++) {
      const turn = turns[turnIndex]!;
      if (turn.enter !== undefined) {
        const edge = bp.stages.find((s) => s.name === current)?.transitions.find((e) => e.target === turn.enter);
        if (!edge) throw new Error(`stage ${current} has no edge to ${turn.enter}`);
        applyTransform(state, bp, edge);
        const next = sync(enterStage(state, bp, turn.enter, env));
        if (!next.ok) throw new Error(next.message);
        current = turn.enter;
        tools = turnTools(current);
        note = noteOf(current);
        flatToolList = toolsOf(current);
        // A flat list has no instructions region: the stage's prompt arrives as a user message.
        const prompt = bp.stages.find((s) => s.name === current)?.systemPrompt;
        if (prompt) flat.push({ role: 'user', content: prompt.trim() });
      }
      const report = sync(maintain(state, bp, env));
      if (report.folds.some((f) => f.ok)) compactions.push(turnIndex + 1);
      for (const r of visibleRegions(state)) {
        const held = regionTokens(r);
        if (held > r.budget) overBudget.push(`${turnIndex + 1} ${r.name} ${held}/${r.budget}`);
      }
      const rendered = renderPrompt(state, bp, env, { iteration: turnIndex, ...(note ? { grantNote: note } : {}) });
      const last = rendered.messages[rendered.messages.length - 1];
      tails.push(last?.role === 'user' && last.tail === true);
      const request = (model: string): InferenceRequest => ({
        model,
        system: rendered.system.map((b) => ({ text: systemBlockText(b), ...(b.cache ? { cache: true } : {}) })),
        messages: rendered.messages,
        tools,
        maxTokens: 4096,
        meta: {
          runId: 'bench-session',
          stage: current,
          turn: turnIndex,
          purpose: 'turn',
          attempt: 1,
          stageTurn: turnIndex,
        },
      });
      const reply = await openai.infer(request(OPENAI_MODEL));
      await anthropic.infer(request(ANTHROPIC_MODEL));
      const flatRequest = (model: string): InferenceRequest => ({
        ...request(model),
        system: flatSystem,
        tools: flatToolList,
        messages: flat.map((m, i) => (i === flat.length - 1 ? { ...m, cache: true } : m)),
      });
      await flatOpenai.infer(flatRequest(OPENAI_MODEL));
      await flatAnthropic.infer(flatRequest(ANTHROPIC_MODEL));

      const calls: ToolCall[] = reply.toolCalls;
      const callsText = calls.map((c) => `${c.name}${JSON.stringify(c.arguments)}`).join('\n');
      sync(
        writeEntry(
          state,
          'conversation',
          { kind: 'assistant', content: reply.text, tokens: count(reply.text) + count(callsText), toolCalls: calls },
          env,
        ),
      );
      flat.push(
        calls.length > 0
          ? { role: 'assistant', content: reply.text, toolCalls: calls }
          : { role: 'assistant', content: reply.text },
      );
      for (const call of calls) {
        let content: string;
        let isError = false;
        if ((CONTEXT_TOOLS as readonly string[]).includes(call.name)) {
          const result = sync(applyContextTool(state, bp, call.name, call.arguments, env));
          content = contentText(result.content);
          isError = result.isError;
        } else {
          content = session.toolOutput(turn);
        }
        sync(routeToolResult(state, bp, call, { content, tokens: count(content), isError }, env));
        flat.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}) });
      }
    }
  } finally {
    await server.close();
    await flatServer.close();
  }
  return {
    rows: compare(server.requests, tails),
    flatRows: compare(
      flatServer.requests,
      turns.map(() => false),
    ),
    compactions,
    overBudget,
  };
}

/** Each recorded request against the one before it. */
function compare(requests: readonly Recorded[], tails: readonly boolean[]): Row[] {
  const openaiBodies = requests.filter((r) => r.url.includes('/chat/completions')).map((r) => r.body);
  const anthropicBodies = requests.filter((r) => r.url.includes('/messages')).map((r) => r.body);
  const cache = new AnthropicCache();
  const rows: Row[] = [];
  let prevO: Segment[] | undefined;
  let prevA: Segment[] | undefined;
  openaiBodies.forEach((body, i) => {
    const o = markTail(openaiSegments(body), tails[i] === true);
    const a = markTail(anthropicSegments(anthropicBodies[i]), tails[i] === true);
    const row: Row = {
      turn: i + 1,
      tokens: prefixShare([], o).total,
      tail: tails[i] === true ? tokensOf(o[o.length - 1]!.text) : 0,
      openai: openaiCharge(prevO, o),
      anthropic: cache.charge(a),
    };
    if (prevO && prevA) {
      const s = prefixShare(prevO, o);
      const previousTotal = prefixShare([], prevO).total;
      row.share = s.reused / s.total;
      row.bound = Math.min(1, previousTotal / s.total);
      row.kept = s.reused / previousTotal;
      row.systemKept = s.systemPrevious > 0 ? s.systemKept / s.systemPrevious : 1;
      const sa = prefixShare(prevA, a);
      row.anthropicShare = sa.reused / sa.total;
      row.firstChange = sa.firstChanged?.label ?? '—';
      if (sa.unchanged >= ANTHROPIC_MIN_CACHED) row.costsOnlyAfter = row.anthropic.read >= sa.unchanged;
    }
    rows.push(row);
    prevO = o;
    prevA = a;
  });
  return rows;
}

export function pct(x: number | undefined): string {
  return x === undefined ? '—' : `${(100 * x).toFixed(1)}%`;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The modelled input cost of a session with caching, and without, for one of the two bench models. */
export function sessionCost(
  rows: readonly Row[],
  model: typeof OPENAI_MODEL | typeof ANTHROPIC_MODEL,
): { cached: number; uncached: number; read: number; write: number } | undefined {
  const p = BUILTIN_MODELS[model]?.prices;
  if (!p) return undefined;
  const pick = (r: Row) => (model === ANTHROPIC_MODEL ? r.anthropic : r.openai);
  return {
    cached: rows.reduce((sum, r) => sum + cost(pick(r), p), 0),
    uncached: rows.reduce((sum, r) => sum + (r.tokens * p.input) / 1_000_000, 0),
    read: rows.reduce((sum, r) => sum + pick(r).read, 0),
    write: rows.reduce((sum, r) => sum + pick(r).write, 0),
  };
}

/** One session's totals, as the comparison with the flat list prints them (issue 42's table). */
export interface SessionSummary {
  tokens: number;
  /** Tokens sent in tail messages, which no later request repeats as its prefix. */
  tail: number;
  keptMedian: number;
  /** Requests keeping less than 10 % of the previous request as their prefix. */
  broken: number;
  /** Modelled Anthropic cost as a share of the uncached cost. */
  anthropicShare: number;
  /** Modelled costs in uncached input tokens (cost / input price). */
  anthropicTokens: number;
  openaiTokens: number;
}

export function summarize(rows: readonly Row[]): SessionSummary {
  const kept = rows.filter((r) => r.kept !== undefined).map((r) => r.kept!);
  const inTokens = (model: typeof OPENAI_MODEL | typeof ANTHROPIC_MODEL) => {
    const c = sessionCost(rows, model)!;
    return { ...c, tokens: (c.cached / BUILTIN_MODELS[model]!.prices!.input) * 1_000_000 };
  };
  const a = inTokens(ANTHROPIC_MODEL);
  return {
    tokens: rows.reduce((sum, r) => sum + r.tokens, 0),
    tail: rows.reduce((sum, r) => sum + r.tail, 0),
    keptMedian: median(kept),
    broken: kept.filter((k) => k < 0.1).length,
    anthropicShare: a.cached / a.uncached,
    anthropicTokens: a.tokens,
    openaiTokens: inTokens(OPENAI_MODEL).tokens,
  };
}

const WORDS = ['charge', 'ledger', 'amount', 'merchant', 'retry', 'post', 'status', 'timeout', 'queue', 'refund'];

/** Deterministic TypeScript-like text of about `tokens` tokens. */
export function sourceFile(path: string, tokens: number): string {
  const lines: string[] = [`// ${path}`];
  let text = '';
  for (let i = 0; ; i++) {
    const a = WORDS[i % WORDS.length]!;
    const b = WORDS[(i * 7 + path.length) % WORDS.length]!;
    lines.push(
      `export function ${a}${i}(${b}: number, opts: { ${a}: string }): number {\n  return ${b} * ${(i % 13) + 2} + opts.${a}.length;\n}`,
    );
    if (i % 8 === 7) {
      text = lines.join('\n');
      if (countTokens(text, 'o200k_base') >= tokens) return text;
    }
  }
}
