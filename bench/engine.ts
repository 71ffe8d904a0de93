/**
 * Per-turn cost of the region engine: route one tool result, run the
 * maintenance point, render the prompt. Measured at windows of 32k, 200k
 * and 1M tokens with 100, 1,000 and 10,000 entries spread over a pinned
 * region, a hashmap, a scratch region and the conversation. Every sample
 * starts from a copy of the same prepared state, so each measures the same
 * turn. Counting and cutting requests are answered with the tokenizer, as
 * the activities would; the bytes they tokenize are reported per turn.
 * A custom region's Rhai `render` hook is timed separately (bench/rhai.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBlueprintFromString } from '../src/blueprint/load.js';
import { deterministicSummary } from '../src/context/deterministic-summary.js';
import { enterStage } from '../src/context/enter-stage.js';
import type { EngineEnv } from '../src/context/kinds/custom.js';
import { maintain } from '../src/context/maintenance.js';
import { renderPrompt } from '../src/context/render.js';
import { runSync } from '../src/context/requests.js';
import { routeToolResult } from '../src/context/routing.js';
import { cloneData, createRunState, findRegion, type RunState } from '../src/context/state.js';
import { writeEntry } from '../src/context/write.js';
import type { ToolCall } from '../src/shapes/content.js';
import type { EngineRequest } from '../src/shapes/engine-requests.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import { makeSyncHandler } from '../src/tokens/exact-answers.js';
import { benchRenderHook } from './rhai.js';

const WINDOWS = [32_000, 200_000, 1_000_000];
const ENTRY_COUNTS = [100, 1_000, 10_000];
const SAMPLES = 60;
const WARMUP = 10;
const BATCH = 10;

const BLUEPRINT = (perRegion: number) => `
[agent]
name = "bench"
[context.regions]
task = { kind = "pinned", budget = "10%" }
files = { kind = "hashmap", budget = "15%" }
scratch = { kind = "temporary", budget = "20%" }
conversation = { kind = "sliding_window", budget = "30%", max_items = ${perRegion + 2} }
[stages.main.tool_routing]
default_region = "scratch"
max_result_tokens = 4000
`;

const env: EngineEnv = { now: 0 };

/** Answers engine requests with real counts and records how many bytes were tokenized. */
function meteredHandler(): { handle: (req: EngineRequest) => unknown; bytes: () => number; reset: () => void } {
  const exact = makeSyncHandler('o200k_base', (region, entries, limit) => ({
    ok: true,
    text: deterministicSummary(region, entries, limit),
  }));
  let bytes = 0;
  return {
    handle: (req) => {
      if (req.type === 'count') bytes += Buffer.byteLength(req.text);
      if (req.type === 'cut' && typeof req.content === 'string') bytes += Buffer.byteLength(req.content);
      return exact(req);
    },
    bytes: () => bytes,
    reset: () => {
      bytes = 0;
    },
  };
}

function write(
  state: RunState,
  region: string,
  entry: Parameters<typeof writeEntry>[2],
  handle: (r: EngineRequest) => unknown,
): void {
  const result = runSync(writeEntry(state, region, entry, env), handle);
  if (!result.ok) throw new Error(`setup write to ${region} failed: ${result.message}`);
}

const TEXT = 'function step(state) { return state.entries.filter((e) => e.tokens > 0); } // ';

/** A state holding `entries` entries, a quarter per region, each region about 60% full. */
function prepare(window: number, entries: number): { state: RunState; bp: Blueprint; call: ToolCall } {
  const perRegion = Math.floor(entries / 4);
  const dir = mkdtempSync(join(tmpdir(), 'lev-bench-'));
  const loaded = loadBlueprintFromString(BLUEPRINT(perRegion), dir, join(dir, 'agent.toml'), { window });
  if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
  const bp = loaded.blueprint;
  const { handle } = meteredHandler();
  const state = createRunState(bp, { window });
  const entered = runSync(enterStage(state, bp, 'main', env), handle);
  if (!entered.ok) throw new Error(entered.message);

  const size = (region: string, count: number) =>
    Math.max(1, Math.floor((findRegion(state, region)!.budget * 0.6) / count));
  for (let i = 0; i < perRegion; i++) {
    write(state, 'task', { content: `${TEXT}${i}`, tokens: size('task', perRegion) }, handle);
    write(
      state,
      'files',
      { content: `${TEXT}${i}`, tokens: size('files', perRegion), key: `src/file-${i}.ts` },
      handle,
    );
    write(state, 'scratch', { content: `${TEXT}${i}`, tokens: size('scratch', perRegion) }, handle);
  }
  const turnTokens = size('conversation', perRegion);
  for (let i = 0; i + 3 <= perRegion; i += 3) {
    const id = `c${i}`;
    write(state, 'conversation', { kind: 'user', content: `question ${i}`, tokens: turnTokens }, handle);
    write(
      state,
      'conversation',
      {
        kind: 'assistant',
        content: 'reading',
        tokens: turnTokens,
        toolCalls: [{ id, name: 'read_file', arguments: { path: 'a' } }],
      },
      handle,
    );
    write(
      state,
      'conversation',
      { kind: 'tool_result', content: `${TEXT}${i}`, tokens: turnTokens, toolCallId: id, toolName: 'read_file' },
      handle,
    );
  }
  const call: ToolCall = { id: 'bench-call', name: 'grep', arguments: { pattern: 'step' } };
  write(state, 'conversation', { kind: 'assistant', content: 'searching', tokens: 3, toolCalls: [call] }, handle);
  return { state, bp, call };
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? 0;
}

interface Row {
  window: number;
  entries: number;
  median: number;
  p95: number;
  bytes: number;
}

function measure(window: number, entries: number): Row {
  const { state: base, bp, call } = prepare(window, entries);
  const metered = meteredHandler();
  const output = `${'match: src/file.ts:12: function step(state) {}\n'.repeat(40)}`;
  const outputTokens = metered.handle({ type: 'count', text: output }) as number;
  const times: number[] = [];
  let bytes = 0;
  // Copies are made in batches ahead of the timed turns, so copying garbage is not collected mid-sample.
  let batch: RunState[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    if (batch.length === 0) batch = Array.from({ length: BATCH }, () => cloneData(base));
    const state = batch.pop()!;
    metered.reset();
    const start = performance.now();
    runSync(
      routeToolResult(state, bp, call, { content: output, tokens: outputTokens, isError: false }, env),
      metered.handle,
    );
    runSync(maintain(state, bp, env), metered.handle);
    renderPrompt(state, bp, env);
    const elapsed = (performance.now() - start) * 1000;
    if (i >= WARMUP) {
      times.push(elapsed);
      bytes = metered.bytes();
    }
  }
  times.sort((a, b) => a - b);
  return { window, entries, median: percentile(times, 50), p95: percentile(times, 95), bytes };
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

export function run(): void {
  const rows: Row[] = [];
  for (const entries of ENTRY_COUNTS) for (const window of WINDOWS) rows.push(measure(window, entries));

  const header = ['window', 'entries', 'median µs', 'p95 µs', 'bytes tokenized', 'median vs 32k'];
  const table = rows.map((r) => {
    const base = rows.find((b) => b.entries === r.entries && b.window === WINDOWS[0]);
    return [
      String(r.window),
      String(r.entries),
      fmt(r.median),
      fmt(r.p95),
      String(r.bytes),
      base ? `${(r.median / base.median).toFixed(2)}x` : '',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => (t[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  console.log('Per-turn engine cost: route one tool result + maintenance point + render');
  console.log(line(header));
  for (const t of table) console.log(line(t));
  const target = rows.find((r) => r.window === 200_000 && r.entries === 1_000);
  if (target) console.log(`\n200k window, 1,000 entries: median ${fmt(target.median)} µs (target ≤ 2000 µs)`);
  const hook = benchRenderHook();
  console.log(
    `Rhai custom-region render(ctx) over ${hook.entries} entries, added per turn for each such region: median ${hook.medianUs} µs, p95 ${hook.p95Us} µs`,
  );
}

export default run;
