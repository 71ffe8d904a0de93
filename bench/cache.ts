/**
 * `npm run bench -- cache [--placement system]`: how much of each prompt a
 * provider's prompt cache can reuse. A scripted 30-turn plan session on
 * `blueprints/coder` (file reads into the compacting codebase, todos,
 * scratch notes, one compaction) drives the region engine the way a stage
 * workflow does; every turn's prompt is sent by the real OpenAI and
 * Anthropic adapters to a local recording server, and the recorded bodies
 * are compared request to request. `--placement system` renders every
 * region in the system section (`[context] placement = "system"`, the 0.1
 * layout) for comparison.
 */
import { loadBlueprint } from '../src/blueprint/load.js';
import { deterministicSummary } from '../src/context/deterministic-summary.js';
import type { EngineEnv } from '../src/context/kinds/custom.js';
import { maintain } from '../src/context/maintenance.js';
import { contentText } from '../src/context/measure.js';
import { renderPrompt, systemBlockText } from '../src/context/render.js';
import { type EngineOp, runSync } from '../src/context/requests.js';
import { routeToolResult } from '../src/context/routing.js';
import { seedRegion } from '../src/context/seed-fit.js';
import { enterStage } from '../src/context/stage.js';
import { createRunState } from '../src/context/state.js';
import { applyContextTool } from '../src/context/tools.js';
import { writeEntry } from '../src/context/write.js';
import { BUILTIN_MODELS, getProvider, type InferenceRequest, parseModelRef } from '../src/providers/index.js';
import type { Blueprint, RegionDef } from '../src/shapes/blueprint.js';
import type { ToolCall } from '../src/shapes/content.js';
import { countTokens } from '../src/tokens/count.js';
import { makeSyncHandler } from '../src/tokens/handler.js';
import { stageTools } from '../src/tools/grants.js';
import { CONTEXT_TOOLS } from '../src/tools/names.js';
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
} from './prefix.js';
import { type Recorded, startRecordingServer } from './recording-server.js';

const OPENAI_MODEL = 'openai:gpt-4.1';
/** The blueprint's model, on the wire and priced (reads 0.1x, 5-minute writes 1.25x the input price). */
const ANTHROPIC_MODEL = 'anthropic:claude-sonnet-5-5';
const STAGE = 'plan';
const TASK =
  'Charges are sometimes posted twice when the billing worker retries after a timeout. ' +
  'Make charge posting idempotent: give every charge an idempotency key, store it, and refuse a second post with the same key. ' +
  'Keep the public API of src/billing unchanged and add tests for the retry path.';

interface Turn {
  say: string;
  call?: { name: string; args: Record<string, unknown> };
  /** Size in tokens of a read_file result. */
  file?: number;
}

const read = (path: string, file: number): Turn => ({
  say: `Reading ${path} to see what it does with charges.`,
  call: { name: 'read_file', args: { path } },
  file,
});
const todo = (item: string): Turn => ({
  say: 'Adding a step to the plan.',
  call: { name: 'todo_add', args: { region: 'todos', item } },
});
const note = (content: string): Turn => ({
  say: 'Keeping a note for later.',
  call: { name: 'context_append', args: { region: 'scratch', content } },
});

/** 30 turns: 14 reads (about 53k tokens, one compaction), 7 todos, 4 notes, 2 searches, a listing, a read-back. */
const SESSION: Turn[] = [
  { say: 'Looking at the layout first.', call: { name: 'list_dir', args: { path: 'src' } } },
  read('src/billing/ledger.ts', 4200),
  read('src/billing/charge.ts', 3600),
  todo('Add an idempotency_key column to charges with a unique index'),
  read('src/billing/retry.ts', 3100),
  note('retry.ts re-posts the whole charge after a timeout without checking whether the first post landed.'),
  { say: 'Finding every caller of postCharge.', call: { name: 'grep', args: { pattern: 'postCharge' } } },
  read('src/billing/pool.ts', 3900),
  todo('Generate the key in createCharge and pass it through postCharge'),
  read('src/api/routes.ts', 4400),
  note('routes.ts exposes POST /charges; the key can come from the Idempotency-Key header.'),
  read('src/api/handlers.ts', 3800),
  todo('Accept an Idempotency-Key header in the charges handler'),
  read('src/db/schema.ts', 3300),
  { say: 'Checking the plan so far.', call: { name: 'context_read', args: { region: 'todos' } } },
  read('src/db/migrations.ts', 3500),
  todo('Write the migration for the new column'),
  note('migrations run in order by file name; the next free number is 0042.'),
  read('src/queue/worker.ts', 4100),
  {
    say: 'Refining the first step.',
    call: { name: 'todo_note', args: { region: 'todos', id: 1, note: 'unique per merchant, not globally' } },
  },
  read('src/queue/consumer.ts', 3700),
  { say: 'Looking for existing idempotency code.', call: { name: 'grep', args: { pattern: 'idempotency' } } },
  read('src/config.ts', 3000),
  todo('Refuse a second post with the same key and return the first charge'),
  read('src/billing/refund.ts', 4000),
  note('refunds reference charges by id, so they are unaffected.'),
  read('test/billing.test.ts', 4300),
  todo('Test the retry path: a timeout followed by a retry posts once'),
  read('test/api.test.ts', 3400),
  { say: 'The plan is complete: every step is in the todos checklist.' },
];

const WORDS = ['charge', 'ledger', 'amount', 'merchant', 'retry', 'post', 'status', 'timeout', 'queue', 'refund'];

/** Deterministic TypeScript-like text of about `tokens` tokens. */
function sourceFile(path: string, tokens: number): string {
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

function toolOutput(turn: Turn): string {
  const call = turn.call!;
  if (call.name === 'read_file') return sourceFile(String(call.args.path), turn.file ?? 1000);
  if (call.name === 'list_dir') return 'api/\nbilling/\ndb/\nqueue/\nconfig.ts\nindex.ts';
  const pattern = String(call.args.pattern);
  return [1, 2, 3, 4, 5].map((n) => `src/billing/file${n}.ts:${n * 17}:  ${pattern}(charge, opts)`).join('\n');
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

interface Row {
  turn: number;
  what: string;
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
  openai: CacheCharge;
  anthropic: CacheCharge;
}

function pct(x: number | undefined): string {
  return x === undefined ? '—' : `${(100 * x).toFixed(1)}%`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function describe(turn: Turn | undefined): string {
  if (!turn?.call) return turn ? 'final answer' : '';
  const a = turn.call.args;
  return `${turn.call.name} ${String(a.path ?? a.pattern ?? a.region ?? '')}`.trim();
}

/** Every region in the system section, as `[context] placement = "system"` renders it. */
function allInSystem(bp: Blueprint): Blueprint {
  const system = (defs: readonly RegionDef[]) =>
    defs.map((d) => (d.placement === undefined ? d : { ...d, placement: 'system' as const }));
  return {
    ...bp,
    regions: system(bp.regions),
    stages: bp.stages.map((s) => (s.regions ? { ...s, regions: system(s.regions) } : s)),
  };
}

/** Labels the last segment `tail` when the request ended in the tail. */
function markTail(segments: Segment[], tail: boolean): Segment[] {
  const last = segments[segments.length - 1];
  if (tail && last) segments[segments.length - 1] = { ...last, label: 'tail' };
  return segments;
}

export default async function run(args: string[] = []): Promise<void> {
  const loaded = loadBlueprint('blueprints/coder');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  const placement = args[0] === '--placement' ? args[1] : undefined;
  if (placement !== undefined && placement !== 'system')
    throw new Error(`--placement takes "system" (the 0.1 layout), not ${placement}`);
  const handler = makeSyncHandler('o200k_base', (region, entries, limit) => ({
    ok: true,
    text: deterministicSummary(region, entries, limit),
  }));
  const count = (text: string) => handler({ type: 'count', text }) as number;
  const counted: Blueprint = {
    ...loaded.blueprint,
    stages: loaded.blueprint.stages.map((s) =>
      s.systemPrompt !== undefined ? { ...s, systemPromptTokens: count(s.systemPrompt) } : s,
    ),
  };
  const bp = placement === 'system' ? allInSystem(counted) : counted;
  const env: EngineEnv = { now: 0 };
  const sync = <T>(op: EngineOp<T>): T => runSync(op, handler);
  const state = createRunState(bp);
  const entered = sync(enterStage(state, bp, STAGE, env));
  if (!entered.ok) throw new Error(entered.message);
  sync(seedRegion(state, 'task', [{ content: TASK, tokens: count(TASK) }], env, { replaceSeeded: true }));

  let turnIndex = 0;
  const server = await startRecordingServer((req: Recorded) => {
    const turn = SESSION[turnIndex]!;
    return req.url.includes('/chat/completions') ? openaiReply(turn, turnIndex) : anthropicReply(turn, turnIndex);
  });
  const providerEnv = {
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${server.url}/v1`,
    ANTHROPIC_API_KEY: 'bench',
    ANTHROPIC_BASE_URL: server.url,
  };
  const openai = getProvider(OPENAI_MODEL, providerEnv);
  const anthropic = getProvider(ANTHROPIC_MODEL, providerEnv);
  const tools = toolSpecs(stageTools(bp, STAGE));
  const compactions: number[] = [];
  const tails: boolean[] = [];

  try {
    for (turnIndex = 0; turnIndex < SESSION.length; turnIndex++) {
      const turn = SESSION[turnIndex]!;
      const report = sync(maintain(state, bp, env));
      if (report.folds.some((f) => f.ok)) compactions.push(turnIndex + 1);
      const rendered = renderPrompt(state, bp, env, { iteration: turnIndex });
      const last = rendered.messages[rendered.messages.length - 1];
      tails.push(last?.role === 'user' && last.tail === true);
      const request = (model: string): InferenceRequest => ({
        model,
        system: rendered.system.map((b) => ({ text: systemBlockText(b), ...(b.cache ? { cache: true } : {}) })),
        messages: rendered.messages,
        tools,
        maxTokens: 4096,
        meta: {
          runId: 'bench-cache',
          stage: STAGE,
          turn: turnIndex,
          purpose: 'turn',
          attempt: 1,
          stageTurn: turnIndex,
        },
      });
      const reply = await openai.infer(request(OPENAI_MODEL));
      await anthropic.infer(request(ANTHROPIC_MODEL));

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
      for (const call of calls) {
        let content: string;
        let isError = false;
        if ((CONTEXT_TOOLS as readonly string[]).includes(call.name)) {
          const result = sync(applyContextTool(state, bp, call.name, call.arguments, env));
          content = contentText(result.content);
          isError = result.isError;
        } else {
          content = toolOutput(turn);
        }
        sync(routeToolResult(state, bp, call, { content, tokens: count(content), isError }, env));
      }
    }
  } finally {
    await server.close();
  }

  const openaiBodies = server.requests.filter((r) => r.url.includes('/chat/completions')).map((r) => r.body);
  const anthropicBodies = server.requests.filter((r) => r.url.includes('/messages')).map((r) => r.body);
  const cache = new AnthropicCache();
  const rows: Row[] = [];
  let prevO: Segment[] | undefined;
  let prevA: Segment[] | undefined;
  openaiBodies.forEach((body, i) => {
    const o = markTail(openaiSegments(body), tails[i] === true);
    const a = markTail(anthropicSegments(anthropicBodies[i]), tails[i] === true);
    const row: Row = {
      turn: i + 1,
      what: describe(SESSION[i - 1]),
      tokens: prefixShare([], o).total,
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

  const header = [
    'turn',
    'after',
    'prompt tokens',
    'reusable (OpenAI body)',
    'at best',
    'previous kept',
    'system kept',
    'reusable (Anthropic body)',
    'first change',
    'cached up to it',
  ];
  const lines = rows.map((r) => [
    String(r.turn),
    r.what,
    String(r.tokens),
    pct(r.share),
    pct(r.bound),
    pct(r.kept),
    pct(r.systemKept),
    pct(r.anthropicShare),
    r.firstChange ?? '',
    r.costsOnlyAfter === undefined ? (r.firstChange ? 'n/a' : '') : r.costsOnlyAfter ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((x, c) => (c === 1 || c === 8 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!)));
  console.log(
    `cache bench: blueprints/coder, stage ${STAGE}, ${SESSION.length} turns, compaction before turn(s) ${compactions.join(', ') || 'none'}, ` +
      (placement === 'system' ? 'every region in the system section (--placement system)' : 'default placement'),
  );
  console.log(fmt(header).join('  '));
  for (const l of lines) console.log(fmt(l).join('  '));

  const pairs = rows.filter((r) => r.share !== undefined);
  const shares = pairs.map((r) => r.share!);
  const anthropicShares = pairs.map((r) => r.anthropicShare!);
  const kept = pairs.map((r) => r.kept!);
  const systemKept = pairs.filter((r) => r.systemKept! >= 0.98).length;
  const bounded = pairs.filter((r) => r.bound! < 0.95).length;
  const judged = pairs.filter((r) => r.costsOnlyAfter !== undefined);
  const onlyAfter = judged.filter((r) => r.costsOnlyAfter).length;
  console.log('');
  console.log(`reusable prefix (OpenAI body):    median ${pct(median(shares))}, minimum ${pct(Math.min(...shares))}`);
  console.log(
    `at best (the whole previous request reused): median ${pct(median(pairs.map((r) => r.bound!)))}; ` +
      `${bounded}/${pairs.length} turns add over 5% new tokens, so no layout reuses 95% of them`,
  );
  const noRead = pairs.filter((r) => SESSION[r.turn - 2]?.call?.name !== 'read_file').map((r) => r.share!);
  console.log(
    `reusable prefix on the ${noRead.length} turns after something other than a file read: median ${pct(median(noRead))}, minimum ${pct(Math.min(...noRead))}`,
  );
  console.log(
    `reusable prefix (Anthropic body): median ${pct(median(anthropicShares))}, minimum ${pct(Math.min(...anthropicShares))}`,
  );
  console.log(`previous request kept as prefix:  median ${pct(median(kept))}, minimum ${pct(Math.min(...kept))}`);
  console.log(
    `turns keeping >= 98% of the system prompt: ${systemKept}/${pairs.length} (${pct(systemKept / pairs.length)})`,
  );
  console.log(
    `a change costs at most the blocks after it (Anthropic reads every block before the first change): ` +
      `${onlyAfter}/${judged.length} turns (${pairs.length - judged.length} with less than ${ANTHROPIC_MIN_CACHED} tokens before it)`,
  );
  for (const [model, pick] of [
    [ANTHROPIC_MODEL, (r: Row) => r.anthropic],
    [OPENAI_MODEL, (r: Row) => r.openai],
  ] as const) {
    const p = BUILTIN_MODELS[model]?.prices;
    if (!p) {
      console.log(`${model}: prices unknown, no cost modelled`);
      continue;
    }
    const cached = rows.reduce((sum, r) => sum + cost(pick(r), p), 0);
    const uncached = rows.reduce((sum, r) => sum + (r.tokens * p.input) / 1_000_000, 0);
    const read = rows.reduce((sum, r) => sum + pick(r).read, 0);
    const write = rows.reduce((sum, r) => sum + pick(r).write, 0);
    console.log(
      `${model} (input $${p.input}, cached read $${p.cachedRead}, cache write $${p.cacheWrite} per Mtok): ` +
        `$${cached.toFixed(4)} with caching vs $${uncached.toFixed(4)} without = ${pct(cached / uncached)} ` +
        `(${read} tokens read from cache, ${write} written)`,
    );
  }
}
