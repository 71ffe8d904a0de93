/**
 * `npm run bench -- cache [--session plan|coding] [--placement system | --blocks] [--stage-tools]`: how much of
 * each prompt a provider's prompt cache can reuse, and what the session costs beside the same
 * session as a flat list (the task pinned, one conversation receiving every result). Two scripted
 * `blueprints/coder` sessions: `plan`, 30 turns of the plan stage (file reads into the compacting
 * codebase, todos, scratch notes, one compaction), and `coding`, the same plan followed by
 * implement and review stages (57 turns). Each drives the region engine the way a stage workflow
 * does; every turn's prompt is sent by the real OpenAI and Anthropic adapters to a local
 * recording server, and the recorded bodies are compared request to request. `--placement system`
 * renders every region in the system section (`[context] placement = "system"`, the 0.1 layout);
 * `--blocks` keeps the default placement but re-renders whole blocks on every write (the layout
 * before writes in place, docs/reference/rendering.md#writes-in-place). The regions' requests offer
 * what a run's turns offer: the run's tools (`[runtime] stable_tools`, on by default,
 * docs/reference/rendering.md#the-tool-list); `--stage-tools` sets it off, so each stage offers its
 * own, as before the switch.
 */
import { loadBlueprint } from '../src/blueprint/load.js';
import { assignPlacements } from '../src/blueprint/placement.js';
import { BUILTIN_MODELS } from '../src/providers/index.js';
import type { Blueprint, RegionDef } from '../src/shapes/frozen-blueprint.js';
import { ANTHROPIC_MIN_CACHED } from './prefix.js';
import {
  ANTHROPIC_MODEL,
  countStagePrompts,
  median,
  OPENAI_MODEL,
  pct,
  runSession,
  type SessionSummary,
  sessionCost,
  sourceFile,
  summarize,
  type Turn,
} from './prompt-session.js';

const STAGE = 'plan';
const TASK =
  'Charges are sometimes posted twice when the billing worker retries after a timeout. ' +
  'Make charge posting idempotent: give every charge an idempotency key, store it, and refuse a second post with the same key. ' +
  'Keep the public API of src/billing unchanged and add tests for the retry path.';

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

const edit = (path: string): Turn => ({
  say: `Changing ${path}.`,
  call: { name: 'edit_file', args: { path, old: 'postCharge(charge)', new: 'postCharge(charge, key)' } },
});
const test = (failing: number): Turn => ({
  say: 'Running the tests.',
  call: { name: 'shell', args: { command: 'npm test' } },
  file: failing,
});
const done = (id: number): Turn => ({
  say: `Step ${id} is finished.`,
  call: { name: 'todo_done', args: { region: 'todos', id } },
});

/**
 * The plan session without its final answer (29 turns), then 20 implement turns (edits, test runs, todos closed, files read again)
 * and 8 review turns: 57 turns over three stages.
 */
const CODING: Turn[] = [
  ...SESSION.slice(0, -1),
  { ...read('src/db/schema.ts', 3300), enter: 'implement', say: 'Starting with the schema.' },
  edit('src/db/schema.ts'),
  {
    say: 'Adding the migration.',
    call: { name: 'write_file', args: { path: 'src/db/migrations/0042_idempotency.ts', content: 'ALTER TABLE' } },
  },
  test(1800),
  done(1),
  read('src/billing/charge.ts', 3600),
  edit('src/billing/charge.ts'),
  edit('src/billing/ledger.ts'),
  done(2),
  read('src/api/handlers.ts', 3800),
  edit('src/api/handlers.ts'),
  test(1500),
  done(3),
  done(4),
  edit('src/billing/retry.ts'),
  done(5),
  { say: 'Writing the retry test.', call: { name: 'write_file', args: { path: 'test/retry.test.ts', content: 'it' } } },
  test(1200),
  done(6),
  done(7),
  { enter: 'review', say: 'Reviewing the diff.', call: { name: 'shell', args: { command: 'git diff' } }, file: 2500 },
  read('test/retry.test.ts', 1500),
  test(900),
  { say: 'Looking for callers left behind.', call: { name: 'grep', args: { pattern: 'postCharge(' } } },
  read('src/billing/retry.ts', 3100),
  read('src/api/routes.ts', 4400),
  test(900),
  { say: 'DONE: charges carry an idempotency key and a retried post returns the first charge.' },
];

const SESSIONS: Record<string, Turn[]> = { plan: SESSION, coding: CODING };

function toolOutput(turn: Turn): string {
  const call = turn.call!;
  if (call.name === 'read_file') return sourceFile(String(call.args.path), turn.file ?? 1000);
  if (call.name === 'shell') return sourceFile(`$ ${String(call.args.command)}`, turn.file ?? 500);
  if (call.name === 'edit_file' || call.name === 'write_file') return `Wrote ${String(call.args.path)}.`;
  if (call.name === 'list_dir') return 'api/\nbilling/\ndb/\nqueue/\nconfig.ts\nindex.ts';
  const pattern = String(call.args.pattern);
  return [1, 2, 3, 4, 5].map((n) => `src/billing/file${n}.ts:${n * 17}:  ${pattern}(charge, opts)`).join('\n');
}

function describe(turn: Turn | undefined): string {
  if (!turn?.call) return turn ? 'final answer' : '';
  const a = turn.call.args;
  return `${turn.call.name} ${String(a.path ?? a.pattern ?? a.region ?? '')}`.trim();
}

/** Every region in the system section, as `[context] placement = "system"` renders it. */
function allInSystem(bp: Blueprint): Blueprint {
  const system = (defs: readonly RegionDef[]) =>
    defs.map(({ writesInPlace: _inPlace, ...d }) =>
      d.placement === undefined ? d : { ...d, placement: 'system' as const },
    );
  return {
    ...bp,
    regions: system(bp.regions),
    stages: bp.stages.map((s) => (s.regions ? { ...s, regions: system(s.regions) } : s)),
  };
}

/** Whole blocks re-rendered on every write, as blueprints recorded before writes in place render. */
function withoutWritesInPlace(bp: Blueprint): Blueprint {
  const blocks = (defs: readonly RegionDef[]) => defs.map(({ writesInPlace: _inPlace, ...d }) => d);
  return {
    ...bp,
    regions: blocks(bp.regions),
    stages: bp.stages.map((s) => (s.regions ? { ...s, regions: blocks(s.regions) } : s)),
  };
}

/**
 * The blueprint with its conversation shedding one turn per write once full, marked for writes in
 * place as the loader marks such a blueprint (none, beside a per-item conversation).
 */
function perItemConversation(bp: Blueprint): Blueprint {
  const perItem = (defs: readonly RegionDef[]) =>
    defs.map(({ writesInPlace: _inPlace, ...d }): RegionDef => {
      if (d.name !== 'conversation') return d;
      const { overflow: _overflow, shedTo: _shedTo, ...window } = d;
      return { ...window, strategy: 'per_item' };
    });
  const regions = perItem(bp.regions);
  const stages = bp.stages.map((s) => (s.regions ? { ...s, regions: perItem(s.regions) } : s));
  assignPlacements([...regions, ...stages.flatMap((s) => s.regions ?? [])], 'auto');
  return { ...bp, regions, stages };
}

export default async function run(args: string[] = []): Promise<void> {
  const loaded = loadBlueprint('blueprints/coder');
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  const placed = args.indexOf('--placement');
  const blocks = args.includes('--blocks');
  const placement = placed >= 0 ? args[placed + 1] : blocks ? 'blocks' : undefined;
  if (placed >= 0 && placement !== 'system')
    throw new Error(`--placement takes "system" (the 0.1 layout), not ${placement}`);
  const at = args.indexOf('--session');
  const only = at >= 0 ? args[at + 1] : undefined;
  if (only !== undefined && !SESSIONS[only])
    throw new Error(`--session takes ${Object.keys(SESSIONS).join(' or ')}, not ${only}`);
  const counted = countStagePrompts(loaded.blueprint);
  const laid =
    placement === 'system' ? allInSystem(counted) : placement === 'blocks' ? withoutWritesInPlace(counted) : counted;
  const bp = args.includes('--stage-tools') ? { ...laid, runtime: { ...laid.runtime, stableTools: false } } : laid;
  for (const [name, turns] of Object.entries(SESSIONS)) {
    if (only !== undefined && name !== only) continue;
    await report(bp, name, turns, placement);
    console.log('');
  }
}

async function report(bp: Blueprint, name: string, SESSION: Turn[], placement: string | undefined): Promise<void> {
  const { rows, flatRows, compactions, overBudget } = await runSession({
    bp,
    stage: STAGE,
    task: TASK,
    turns: SESSION,
    toolOutput,
  });
  const stages = [STAGE, ...SESSION.flatMap((t) => (t.enter ? [t.enter] : []))];

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
    `${SESSION[r.turn - 1]?.enter ? `(→ ${SESSION[r.turn - 1]!.enter}) ` : ''}${describe(SESSION[r.turn - 2])}`,
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
    `cache bench, session ${name}: blueprints/coder, stage${stages.length > 1 ? 's' : ''} ${stages.join(' → ')}, ${SESSION.length} turns, compaction before turn(s) ${compactions.join(', ') || 'none'}, ` +
      (placement === 'system'
        ? 'every region in the system section (--placement system)'
        : placement === 'blocks'
          ? 'default placement, whole blocks re-rendered on every write (--blocks)'
          : 'default placement, writes in place'),
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
  for (const model of [ANTHROPIC_MODEL, OPENAI_MODEL] as const) {
    const c = sessionCost(rows, model);
    if (!c) {
      console.log(`${model}: prices unknown, no cost modelled`);
      continue;
    }
    const p = BUILTIN_MODELS[model]!.prices!;
    console.log(
      `${model} (input $${p.input}, cached read $${p.cachedRead}, cache write $${p.cacheWrite} per Mtok): ` +
        `$${c.cached.toFixed(4)} with caching vs $${c.uncached.toFixed(4)} without = ${pct(c.cached / c.uncached)} ` +
        `(${c.read} tokens read from cache, ${c.write} written)`,
    );
  }
  console.log('');
  const here = summarize(rows);
  printFlatComparison(here, summarize(flatRows));
  // The price `lev validate`'s per-item-conversation note quotes: the same session with a conversation
  // that drops its oldest turn on every write once full.
  const perItem = summarize(
    (await runSession({ bp: perItemConversation(bp), stage: STAGE, task: TASK, turns: SESSION, toolOutput })).rows,
  );
  console.log(
    `conversation with strategy = "per_item" instead of "bulk": Anthropic cost ${(perItem.anthropicTokens / here.anthropicTokens).toFixed(2)}×, ` +
      `OpenAI ${(perItem.openaiTokens / here.openaiTokens).toFixed(2)}×, tokens sent ${(perItem.tokens / here.tokens).toFixed(2)}×, ` +
      `requests keeping < 10 % of the previous: ${perItem.broken} (bulk: ${here.broken})`,
  );
  console.log(
    overBudget.length === 0
      ? 'no region over its budget at any request'
      : `regions over their budget (turn region held/budget): ${overBudget.join('; ')}`,
  );
}

/** Issue 42's table: this session against the same session as a flat list (task pinned, every result in one conversation). */
function printFlatComparison(here: SessionSummary, flat: SessionSummary): void {
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const table: string[][] = [
    ['', 'regions', 'flat list', 'regions / flat'],
    ['input tokens sent over the session', k(here.tokens), k(flat.tokens), ratio(here.tokens, flat.tokens)],
    ['of which in the tail (never a later prefix)', k(here.tail), k(flat.tail), ''],
    ['previous request kept as prefix, median', here.keptMedian.toFixed(3), flat.keptMedian.toFixed(3), ''],
    ['requests keeping < 10 % of the previous', String(here.broken), String(flat.broken), ''],
    ['Anthropic cost as a share of uncached', here.anthropicShare.toFixed(3), flat.anthropicShare.toFixed(3), ''],
    [
      'Anthropic cost, in uncached tokens',
      k(here.anthropicTokens),
      k(flat.anthropicTokens),
      ratio(here.anthropicTokens, flat.anthropicTokens),
    ],
    [
      'OpenAI cost, in uncached tokens',
      k(here.openaiTokens),
      k(flat.openaiTokens),
      ratio(here.openaiTokens, flat.openaiTokens),
    ],
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  for (const row of table)
    console.log(row.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join('  '));
}
