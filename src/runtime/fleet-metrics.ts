/**
 * Leviath's `leviath_*` metrics (docs/reference/operating.md#leviaths-metrics): the one table of
 * their names, units and descriptions, which the activities (`src/metrics/leviath.ts`) and the
 * workflows (`workflows/meter.ts`) both emit from, and the pure decisions of what a workflow
 * counts: the evictions, folds and gate outcomes of an engine operation, the tool calls the
 * workflow answers itself, and a run's waits for people. Pure: imported by workflow code; the
 * workflow's meter drops what is emitted while it replays, so counting changes no history.
 */
import type { RunState } from '../context/index.js';
import type { Entry } from '../shapes/content.js';
import { toolFacts } from '../shapes/tool-catalogue.js';
import type { OpCall, OpResults } from './ops.js';
import type { WaitingKind } from './types.js';
import type { CallEffect } from './visit.js';

interface MetricDef {
  name: string;
  unit: string;
  description: string;
}

/** Every `leviath_*` counter; both sides create them with these exact names, units and descriptions. */
export const LEVIATH_METRICS = {
  turns: { name: 'leviath_turns_total', unit: 'turns', description: 'Agent turns (inferences of a stage).' },
  modelCalls: {
    name: 'leviath_model_calls_total',
    unit: 'calls',
    description: 'Model calls that answered, by provider, model and purpose.',
  },
  modelErrors: { name: 'leviath_model_errors_total', unit: 'errors', description: 'Model calls that failed, by kind.' },
  tokensIn: {
    name: 'leviath_tokens_in_total',
    unit: 'tokens',
    description: 'Prompt tokens the provider counted, cached ones included.',
  },
  tokensOut: { name: 'leviath_tokens_out_total', unit: 'tokens', description: 'Completion tokens.' },
  tokensCached: {
    name: 'leviath_tokens_cached_total',
    unit: 'tokens',
    description: 'Prompt tokens read from the provider cache.',
  },
  cost: {
    name: 'leviath_cost_microusd_total',
    unit: 'microusd',
    description: 'Estimated cost at list prices, in millionths of a US dollar.',
  },
  toolCalls: { name: 'leviath_tool_calls_total', unit: 'calls', description: 'Tool calls, by tool and outcome.' },
  evictions: {
    name: 'leviath_evictions_total',
    unit: 'entries',
    description: 'Entries dropped from a region to make room, by region kind and cause.',
  },
  evictedTokens: {
    name: 'leviath_evicted_tokens_total',
    unit: 'tokens',
    description: 'Tokens of the entries dropped to make room, by region kind and cause.',
  },
  folds: {
    name: 'leviath_folds_total',
    unit: 'folds',
    description: "Folds (a region's oldest entries summarised), by region kind and outcome.",
  },
  foldedTokens: {
    name: 'leviath_folded_tokens_total',
    unit: 'tokens',
    description: 'Tokens of the entries successful folds summarised, by region kind.',
  },
  gateBlocks: {
    name: 'leviath_gate_blocks_total',
    unit: 'checks',
    description: 'Completion checks that kept a run in its stage, by blueprint, stage and check.',
  },
  gatesForced: {
    name: 'leviath_gates_forced_total',
    unit: 'checks',
    description: 'Completion checks passed by force after too many attempts, by blueprint, stage and check.',
  },
  waitsStarted: {
    name: 'leviath_waits_started_total',
    unit: 'waits',
    description: 'Times a run began to wait for a person, by reason.',
  },
  waitsEnded: {
    name: 'leviath_waits_ended_total',
    unit: 'waits',
    description: 'Times a run stopped waiting for a person, by reason.',
  },
  rejectedMessages: {
    name: 'leviath_rejected_messages_total',
    unit: 'messages',
    description:
      'Signals a run or a stage visit dropped because their argument had the wrong shape, by workflow and message.',
  },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof LEVIATH_METRICS;

/** One addition to a counter. */
export interface MetricAdd {
  metric: MetricName;
  value: number;
  tags: Record<string, string>;
}

/** Why entries left a region to make room: a write, the window cascade, a stage entry's smaller budget, a fold that gave up. */
export type EvictionCause = 'write' | 'cascade' | 'stage-entry' | 'fold-failure';

/** What a write evicted, as the engine told it (`EngineEnv.onEvict`). */
export interface WriteEviction {
  /** The region's name and kind. */
  region: string;
  kind: string;
  entries: readonly Entry[];
}

/** An operation the workflow applied, with its result. */
export type AppliedOp = {
  [K in OpCall['kind']]: { call: Extract<OpCall, { kind: K }>; result: OpResults[K] };
}[OpCall['kind']];

function kindOf(state: RunState, region: string): string {
  return state.regions.find((r) => r.name === region)?.kind ?? 'unknown';
}

function evicted(kind: string, cause: EvictionCause, entries: number, tokens: number): MetricAdd[] {
  if (entries <= 0) return [];
  const tags = { kind, cause };
  return [
    { metric: 'evictions', value: entries, tags },
    { metric: 'evictedTokens', value: tokens, tags },
  ];
}

function tokensOf(entries: readonly Entry[]): number {
  return entries.reduce((sum, e) => sum + e.tokens, 0);
}

/**
 * What one engine operation counts, from its effects on `state` (the state after it): the
 * entries its writes evicted, the cascade's and a stage entry's removals, every fold, and a
 * completion check that blocked or was forced.
 */
export function opMetrics(
  state: RunState,
  blueprint: string,
  op: AppliedOp,
  writes: readonly WriteEviction[],
): MetricAdd[] {
  const adds = writes.flatMap((w) => evicted(w.kind, 'write', w.entries.length, tokensOf(w.entries)));
  if (op.call.kind === 'maintain') {
    const report = op.result as OpResults['maintain'];
    for (const r of report.removed)
      adds.push(...evicted(kindOf(state, r.region), 'cascade', r.entries.length, tokensOf(r.entries)));
    for (const fold of report.folds) {
      const kind = kindOf(state, fold.region);
      adds.push({ metric: 'folds', value: 1, tags: { kind, outcome: fold.ok ? 'ok' : 'failed' } });
      if (fold.ok && fold.foldedTokens > 0)
        adds.push({ metric: 'foldedTokens', value: fold.foldedTokens, tags: { kind } });
      if (fold.discarded) adds.push(...evicted(kind, 'fold-failure', fold.discarded.entries, fold.discarded.tokens));
    }
  } else if (op.call.kind === 'enterStage') {
    const entered = op.result as OpResults['enterStage'];
    if (entered.ok)
      for (const r of entered.reduced)
        adds.push(...evicted(kindOf(state, r.region), 'stage-entry', r.removed.length, tokensOf(r.removed)));
  } else if (op.call.kind === 'gate') {
    const gate = op.result as OpResults['gate'];
    const tags = { blueprint, stage: op.call.fromStage, check: gate.check ?? 'unknown' };
    if (gate.outcome === 'block') adds.push({ metric: 'gateBlocks', value: 1, tags });
    if (gate.outcome === 'forced') adds.push({ metric: 'gatesForced', value: 1, tags });
  }
  return adds;
}

/**
 * A tool call the workflow answered without the tool activity, which counts the calls it runs
 * itself: refused (the stage was not given the tool), `invalid` (arguments that were not JSON),
 * denied by a person or left without a decision, and the context, agent and asking-tool calls
 * (`ask_user`, `ask_user_choice`, ...).
 * A name the model made up is counted as `other`, so a label never takes an unbounded value.
 */
export function workflowToolCall(
  name: string,
  effect: CallEffect | 'invalid',
  ranAsActivity: boolean,
): MetricAdd | undefined {
  if (ranAsActivity) return undefined;
  const known = toolFacts(name) !== undefined;
  const outcome =
    effect === 'invalid'
      ? 'invalid'
      : effect.kind === 'refused'
        ? 'refused'
        : effect.kind === 'builtin' && effect.denied
          ? 'denied'
          : effect.isError
            ? 'error'
            : 'ok';
  // Refused and invalid calls carry whatever name the model wrote; the others were granted by name.
  const tool = known || (outcome !== 'refused' && outcome !== 'invalid') ? name : 'other';
  return { metric: 'toolCalls', value: 1, tags: { tool, outcome } };
}

/**
 * A run's wait for people changed (`waitingKind`): the wait that ended and the one that began.
 * `leviath_waits_started_total - leviath_waits_ended_total` by reason is how many runs wait now.
 */
export function waitChange(before: WaitingKind | undefined, after: WaitingKind | undefined): MetricAdd[] {
  if (before === after) return [];
  return [
    ...(before ? [{ metric: 'waitsEnded' as const, value: 1, tags: { reason: before } }] : []),
    ...(after ? [{ metric: 'waitsStarted' as const, value: 1, tags: { reason: after } }] : []),
  ];
}
