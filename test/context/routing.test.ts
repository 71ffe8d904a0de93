import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { enterStage } from '../../src/context/enter-stage.js';
import type { EngineEnv } from '../../src/context/kinds/custom.js';
import { regionTokens } from '../../src/context/measure.js';
import { runSync } from '../../src/context/requests.js';
import { pathToolHint, resultCap, routeToolResult, type ToolOutput } from '../../src/context/routing.js';
import { createRunState, findRegion, type RunState } from '../../src/context/state.js';
import { writeEntry } from '../../src/context/write.js';
import type { ToolCall } from '../../src/shapes/content.js';
import type { EngineRequest } from '../../src/shapes/engine-requests.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const dir = mkdtempSync(join(tmpdir(), 'lev-routing-'));
const env: EngineEnv = { now: 0 };

/** Counts words; cuts to `<K of N tokens, cut>` of exactly K, like the simulator's synthetic text. */
function handler(req: EngineRequest): unknown {
  switch (req.type) {
    case 'count':
      return req.text.split(/\s+/).filter(Boolean).length;
    case 'cut':
      return { content: `<${req.target} of ${req.tokens} tokens, cut>`, tokens: req.target };
    default:
      return { ok: false, error: 'no summaries here' };
  }
}

function setup(toml: string): { state: RunState; bp: Blueprint } {
  const loaded = loadBlueprintFromString(toml, dir, join(dir, 'agent.toml'), { window: 100_000 });
  if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
  const bp = loaded.blueprint;
  const state = createRunState(bp, { window: 100_000 });
  const entered = runSync(enterStage(state, bp, bp.agent.entryStage, env), handler);
  if (!entered.ok) throw new Error(entered.message);
  return { state, bp };
}

function assistant(state: RunState, calls: ToolCall[]): void {
  const result = runSync(
    writeEntry(state, 'conversation', { kind: 'assistant', content: 'calling', tokens: 1, toolCalls: calls }, env),
    handler,
  );
  if (!result.ok) throw new Error(result.message);
}

const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({
  id,
  name,
  arguments: args,
});
const output = (tokens: number, content = `<${tokens} tokens>`, isError = false): ToolOutput => ({
  content,
  tokens,
  isError,
});

function entryTokens(state: RunState, region: string): number[] {
  return findRegion(state, region)?.entries.map((e) => e.tokens) ?? [];
}

const ROUTED = `
[context.regions]
scratch = { kind = "temporary", max_tokens = 10000 }
codebase = { kind = "compacting", max_tokens = 40000 }
[stages.main.tool_routing]
default_region = "scratch"
max_result_tokens = 4000
[stages.main.tool_routing.overrides]
read_file = "codebase"
[stages.main.tool_routing.max_result_tokens_per_tool]
read_file = 20000
bash = 500
`;

describe('caps and targets (docs/reference/routing.md#caps, scenario 24)', () => {
  it('applies per-tool caps, override targets and the bash alias', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('r1', 'read_file', { path: 'a.ts' }), call('r2', 'grep'), call('r3', 'shell')]);
    const r1 = runSync(
      routeToolResult(state, bp, call('r1', 'read_file', { path: 'a.ts' }), output(15000), env),
      handler,
    );
    const r2 = runSync(routeToolResult(state, bp, call('r2', 'grep'), output(6000), env), handler);
    const r3 = runSync(routeToolResult(state, bp, call('r3', 'shell'), output(900), env), handler);
    expect([r1.outcome, r2.outcome, r3.outcome]).toEqual(['stored', 'cut', 'cut']);
    expect(entryTokens(state, 'codebase')).toEqual([15000]);
    expect(entryTokens(state, 'scratch')).toEqual([4000, 500]);
    const conversation = findRegion(state, 'conversation')?.entries ?? [];
    expect(conversation.map((e) => [e.kind, e.toolCallId ?? null])).toEqual([
      ['assistant', null],
      ['tool_result', 'r1'],
      ['tool_result', 'r2'],
      ['tool_result', 'r3'],
    ]);
    expect(findRegion(state, 'codebase')?.updates).toBe(1);
    expect(findRegion(state, 'scratch')?.updates).toBe(2);
  });

  it('resolves the cap: per tool, else the override, else the stage ceiling', () => {
    const routing = {
      defaultRegion: 'scratch',
      maxResultTokens: 4000,
      overrides: { grep: { maxResultTokens: 300 } },
      maxResultTokensPerTool: { shell: 500 },
      persist: true,
    };
    expect(resultCap(routing, 'bash')).toBe(500);
    expect(resultCap(routing, 'grep')).toBe(300);
    expect(resultCap(routing, 'list_dir')).toBe(4000);
    expect(resultCap(undefined, 'grep')).toBeUndefined();
  });

  it('sends every result to conversation when the stage has no tool_routing', () => {
    const { state, bp } = setup('[context.regions]\nnotes = { kind = "temporary" }\n');
    assistant(state, [call('t1', 'grep')]);
    const routed = runSync(routeToolResult(state, bp, call('t1', 'grep'), output(30, 'match one two'), env), handler);
    expect(routed.region).toBe('conversation');
    expect(routed.pointer).toBeUndefined();
    expect(findRegion(state, 'conversation')?.entries.at(-1)).toMatchObject({
      kind: 'tool_result',
      toolCallId: 't1',
      content: 'match one two',
      tokens: 30,
    });
  });

  it('keeps context tool results in conversation even with a default region', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('c1', 'context_list')]);
    const routed = runSync(routeToolResult(state, bp, call('c1', 'context_list'), output(10, 'listing'), env), handler);
    expect(routed.region).toBe('conversation');
    expect(entryTokens(state, 'scratch')).toEqual([]);
  });

  it('sends results to scratch when persist is false', () => {
    const { state, bp } = setup(`
[context.regions]
scratch = { kind = "temporary" }
codebase = { kind = "temporary" }
[stages.main.tool_routing]
default_region = "codebase"
persist = false
`);
    assistant(state, [call('t1', 'grep')]);
    expect(runSync(routeToolResult(state, bp, call('t1', 'grep'), output(10), env), handler).region).toBe('scratch');
    expect(entryTokens(state, 'scratch')).toEqual([10]);
  });
});

describe('the ladder and pointers (docs/reference/routing.md#ladder)', () => {
  const reject = `
[context.regions]
scratch = { kind = "temporary", max_tokens = 1000, admission = "reject" }
[stages.main.tool_routing]
default_region = "scratch"
`;

  it('cuts to the free room under reject, then stores nothing but a pointer (scenario 25)', () => {
    const { state, bp } = setup(reject);
    runSync(writeEntry(state, 'scratch', { content: 'held', tokens: 700 }, env), handler);
    assistant(state, [call('t1', 'grep'), call('t2', 'grep')]);
    const first = runSync(routeToolResult(state, bp, call('t1', 'grep'), output(900), env), handler);
    expect(first.outcome).toBe('cut');
    expect(entryTokens(state, 'scratch')).toEqual([700, 300]);
    expect(first.pointer).toMatch(/only the beginning .* fitted in region scratch; 600 of 900 tokens were dropped/);
    expect(first.pointer).toContain('context_delete');

    const second = runSync(routeToolResult(state, bp, call('t2', 'grep'), output(500), env), handler);
    expect(['placeholder', 'dropped']).toContain(second.outcome);
    expect(regionTokens(findRegion(state, 'scratch')!)).toBe(1000);
    expect(second.pointer).toMatch(/region scratch had no room/);
    expect(second.pointer).toContain('repeat the call');
  });

  it('cuts to the whole budget in an evicting region, evicting the rest (scenario 26)', () => {
    const { state, bp } = setup(
      '[context.regions]\nscratch = { kind = "temporary", max_tokens = 1000 }\n[stages.main.tool_routing]\ndefault_region = "scratch"\n',
    );
    runSync(writeEntry(state, 'scratch', { content: 'held', tokens: 700 }, env), handler);
    assistant(state, [call('t1', 'grep')]);
    const routed = runSync(routeToolResult(state, bp, call('t1', 'grep'), output(1500), env), handler);
    expect(routed.outcome).toBe('cut');
    expect(findRegion(state, 'scratch')?.entries.map((e) => [e.tokens, e.content])).toEqual([
      [1000, '<1000 of 1500 tokens, cut>'],
    ]);
  });

  it('says a stored result is already visible, with its size and a 160-character preview', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('t1', 'grep')]);
    const long = 'x'.repeat(400);
    const routed = runSync(routeToolResult(state, bp, call('t1', 'grep'), output(50, long), env), handler);
    expect(routed.pointer).toContain('stored in region scratch (50 tokens)');
    expect(routed.pointer).toContain('no further call is needed');
    expect(routed.pointer).toContain(`${'x'.repeat(160)}…`);
    expect(routed.pointer).not.toContain('x'.repeat(161));
  });

  it('never cuts the preview inside an emoji', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('t1', 'grep')]);
    // 159 ASCII characters, then an emoji whose two UTF-16 halves straddle the 160-unit cut.
    const text = `${'x'.repeat(159)}😀 and more`;
    const routed = runSync(routeToolResult(state, bp, call('t1', 'grep'), output(50, text), env), handler);
    expect(routed.pointer).toContain(`${'x'.repeat(159)}…`);
    expect(routed.pointer).not.toMatch(LONE_SURROGATE);
  });

  it('keys hashmap results by the path argument, else by tool and call id', () => {
    const { state, bp } = setup(`
[context.regions]
files = { kind = "hashmap" }
[stages.main.tool_routing]
default_region = "files"
`);
    assistant(state, [call('t1', 'read_file', { path: 'src/a.ts' }), call('t2', 'bash', { command: 'ls' })]);
    runSync(routeToolResult(state, bp, call('t1', 'read_file', { path: 'src/a.ts' }), output(10), env), handler);
    runSync(routeToolResult(state, bp, call('t2', 'bash', { command: 'ls' }), output(10), env), handler);
    expect(findRegion(state, 'files')?.entries.map((e) => e.key)).toEqual(['src/a.ts', 'shell:t2']);
  });

  it('keeps the error flag on the pointer', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('t1', 'grep')]);
    runSync(routeToolResult(state, bp, call('t1', 'grep'), output(5, 'no such file', true), env), handler);
    expect(findRegion(state, 'conversation')?.entries.at(-1)).toMatchObject({
      kind: 'tool_result',
      isError: true,
      toolName: 'grep',
    });
  });
});

describe('path-tool hints (docs/reference/routing.md#path-hints)', () => {
  it('points a failing read of a region name at context_read, and a directory at list_dir', () => {
    const { state } = setup('[context.regions]\nnotes = { kind = "temporary" }\n');
    expect(pathToolHint(state, 'read_file', { path: './notes' }, 'ENOENT')).toContain('context_read');
    expect(pathToolHint(state, 'read_file', { path: 'src' }, 'EISDIR: illegal operation, is a directory')).toContain(
      'list_dir',
    );
    expect(pathToolHint(state, 'grep', { path: 'notes' }, 'ENOENT')).toBeUndefined();
    expect(pathToolHint(state, 'read_file', { path: 'other' }, 'ENOENT')).toBeUndefined();
  });
});

describe('results kept in conversation', () => {
  it('applies the stage cap to context tool results and says so', () => {
    const { state, bp } = setup(ROUTED);
    assistant(state, [call('c1', 'context_read')]);
    const routed = runSync(routeToolResult(state, bp, call('c1', 'context_read'), output(5000), env), handler);
    expect(routed.outcome).toBe('cut');
    expect(routed.text).toBe('cut to the 4000-token cap and stored in conversation (4000 of 5000 tokens kept)');
    expect(findRegion(state, 'conversation')?.entries.at(-1)).toMatchObject({
      kind: 'tool_result',
      toolCallId: 'c1',
      tokens: 4000,
    });
  });
});
