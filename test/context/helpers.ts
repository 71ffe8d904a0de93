/**
 * Builders for blueprints and a deterministic request handler (docs/reference/simulator.md#deterministic-summariser).
 */

import { deterministicSummary } from '../../src/context/deterministic-summary.js';
import { enterStage } from '../../src/context/enter-stage.js';
import type { EngineOp } from '../../src/context/requests.js';
import { runSync } from '../../src/context/requests.js';
import { createRunState, findRegion, type RunState } from '../../src/context/state.js';
import { type NewEntry, type WriteResult, writeEntry } from '../../src/context/write.js';
import type { CountedText } from '../../src/shapes/content.js';
import type { EngineRequest } from '../../src/shapes/engine-requests.js';
import type { Blueprint, EdgeDef, RegionDef, StageDef } from '../../src/shapes/frozen-blueprint.js';

export function def(name: string, kind: RegionDef['kind'], extra: Partial<RegionDef> = {}): RegionDef {
  return {
    name,
    kind,
    admission: 'evict',
    volatility: 'rewritten',
    volatilityDeclared: false,
    summarizable: true,
    required: false,
    describeInPrompt: false,
    ...extra,
  };
}

export function stage(name: string, extra: Partial<StageDef> = {}): StageDef {
  return { name, model: 'scripted:default', allowComplete: false, transitions: [], ...extra };
}

export function edge(target: string, extra: Partial<EdgeDef> = {}): EdgeDef {
  return { target, condition: 'always', transform: 'direct', ...extra };
}

/**
 * A blueprint with the runtime regions appended the way the loader does (docs/reference/regions.md#runtime-regions).
 */
export function blueprint(
  regions: RegionDef[],
  stages: StageDef[] = [stage('main')],
  extra: Partial<Blueprint> = {},
): Blueprint {
  const all = [...regions];
  const has = (n: string) => all.some((r) => r.name === n);
  if (!has('tool_results')) all.push(def('tool_results', 'temporary', { maxTokens: 5000 }));
  if (!has('conversation'))
    all.push(def('conversation', 'sliding_window', { maxItems: 50, strategy: 'per_item', maxTokens: 10000 }));
  if (!has('final_output')) all.push(def('final_output', 'pinned', { maxTokens: 2000 }));
  return {
    dir: '/bp',
    file: '/bp/agent.toml',
    agent: { name: 'test', entryStage: stages[0]!.name },
    regions: all,
    defaultLayout: false,
    compaction: { maxSummaryTokens: 2000, temperature: 0.2 },
    stages,
    readPaths: { allow: [] },
    toolPermissions: { tools: {} },
    safeCommands: { shell: [] },
    security: { allowSeedCommands: true, allowBlueprintReadPaths: false, readPaths: [] },
    limits: { scriptShellTimeoutSecs: 60 },
    models: { 'scripted:default': { contextWindow: 200_000, maxOutputTokens: 8192 } },
    ...extra,
  };
}

/** Counts a composed text as one token per started group of four characters. */
export function countText(text: string): number {
  return Math.ceil(text.length / 4);
}

export function handle(req: EngineRequest): unknown {
  switch (req.type) {
    case 'count':
      return countText(req.text);
    case 'cut':
      return { content: `<${req.target} of ${req.tokens} tokens, cut>`, tokens: req.target } satisfies CountedText;
    case 'summarise':
      return { ok: true, text: deterministicSummary(req.region, req.entries, req.limit) };
  }
}

export function run<T>(op: EngineOp<T>): T {
  return runSync(op, handle);
}

export const env = { now: 0 };

/** A run entered into its first stage. */
export function start(bp: Blueprint, window = 100_000): RunState {
  const state = createRunState(bp, { window });
  const entered = run(enterStage(state, bp, bp.agent.entryStage, env));
  if (!entered.ok) throw new Error(entered.message);
  return state;
}

export function put(
  state: RunState,
  region: string,
  content: string,
  tokens: number,
  extra: Partial<NewEntry> = {},
): WriteResult {
  return run(writeEntry(state, region, { content, tokens, ...extra }, env));
}

export function user(state: RunState, content: string, tokens: number): WriteResult {
  return put(state, 'conversation', content, tokens, { kind: 'user' });
}

export function contents(state: RunState, region: string): unknown[] {
  return findRegion(state, region)!.entries.map((e) => e.content);
}

export function tokensOf(state: RunState, region: string): number[] {
  return findRegion(state, region)!.entries.map((e) => e.tokens);
}
