/**
 * Folds (docs/reference/regions.md): entries leave a region and come back as one
 * summary entry, or go to the paired compact_history. A failed fold puts
 * everything back; three failures in a row discard the pending entries,
 * and say so.
 */

import type { CountedText, Entry, RegionState } from '../shapes/content.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { groupCount, popGroup, shiftGroup } from './groups.js';
import type { EngineEnv } from './kinds/custom.js';
import { behaviourOf } from './kinds/index.js';
import { maxItems } from './kinds/sliding-window.js';
import { contentText, entriesTokens, regionTokens } from './measure.js';
import { cut, type EngineOp, summarise } from './requests.js';
import { addDiagnostic, type RunState } from './state.js';
import { stampEntry } from './write.js';

/** Consecutive failures after which a region's pending entries are dropped. */
export const MAX_FOLD_FAILURES = 3;

export interface FoldReport {
  region: string;
  ok: boolean;
  /** Entries summarised (a nested summary counts as one). */
  folded: number;
  foldedTokens: number;
  summaryTokens?: number;
  /** The compact_history that received the summary, when paired. */
  deliveredTo?: string;
  /** True when the history was full and was re-summarised with the new summary. */
  historyResummarised?: boolean;
  error?: string;
  /** Pending entries dropped after repeated failures. */
  discarded?: { entries: number; tokens: number };
}

export interface FoldOptions {
  /** `fold_all`: take every group, including the newest. */
  all?: boolean;
  /** Replaces the built-in summariser instructions (edge `compact_prompt`). */
  prompt?: string;
}

export function maxSummaryTokens(bp: Blueprint, env: EngineEnv): number {
  return env.maxSummaryTokens ?? bp.compaction.maxSummaryTokens;
}

/** The compact_history whose `source_region` is `region`, if any. */
export function pairedHistory(state: RunState, region: string): RegionState | undefined {
  return state.regions.find((r) => behaviourOf(r).holdsSummaries && r.def.sourceRegion === region);
}

/** Asks for a summary of at most `limit` tokens, cutting a longer one. */
function* summaryOf(
  region: string,
  entries: Entry[],
  limit: number,
  prompt: string | undefined,
): EngineOp<CountedText | { error: string }> {
  const answer = yield* summarise(region, entries, limit, prompt);
  if (!answer.ok) return { error: answer.error };
  if (contentText(answer.text.content).trim() === '') return { error: 'the summariser returned blank text' };
  if (answer.text.tokens <= limit) return answer.text;
  return yield* cut(answer.text.content, answer.text.tokens, limit, 'summary exceeded its limit');
}

/** The stored summary entry; made only when the fold commits, so a failed fold leaves the clock alone. */
function summaryEntry(state: RunState, text: CountedText, folded: Entry[], env: EngineEnv): Entry {
  const entry = stampEntry(state, { content: text.content, tokens: text.tokens }, env);
  entry.summary = true;
  entry.foldedEntries = folded.length;
  entry.foldedTokens = entriesTokens(folded);
  return entry;
}

/** A summary as the summariser sees it while it is rolled into a full history's re-summary. */
function draftSummary(text: CountedText, folded: Entry[], env: EngineEnv): Entry {
  return {
    id: 0,
    content: text.content,
    tokens: text.tokens,
    kind: 'text',
    summary: true,
    foldedEntries: folded.length,
    foldedTokens: entriesTokens(folded),
    created: 0,
    touched: 0,
    at: env.now,
  };
}

/**
 * `fold(R, goal)`, or `fold_all(R)` with `opts.all`. Returns null when there
 * was nothing to fold. Changes the state only once the summary is in hand.
 */
export function* fold(
  state: RunState,
  bp: Blueprint,
  region: RegionState,
  goal: number,
  opts: FoldOptions,
  env: EngineEnv,
): EngineOp<FoldReport | null> {
  const mst = maxSummaryTokens(bp, env);
  const entries = [...region.entries];
  const folded: Entry[] = [...region.pending];
  const moved: Entry[] = [];
  const take = (group: Entry[]) => {
    moved.push(...group);
    folded.push(...group);
  };
  while (groupCount(entries) >= (opts.all ? 1 : 2) && (opts.all || entriesTokens(entries) > goal))
    take(shiftGroup(entries));
  if (folded.length === 0) return null;

  const history = pairedHistory(state, region.name);
  // The summary takes index 0 of a compact window, and writes since the strategy ran may have
  // filled the window back to max_items: fold older groups too, so it ends with at most max_items.
  if (!history && region.kind === 'sliding_window' && region.def.strategy === 'compact') {
    while (groupCount(entries) >= 2 && entries.length + 1 > maxItems(region.def)) take(shiftGroup(entries));
  }
  let limit: number;
  if (history) {
    limit = Math.min(mst, history.budget);
  } else {
    const base =
      behaviourOf(region).folds(region.def) === 'threshold' ? (region.threshold ?? region.budget) : region.budget;
    const l = Math.min(mst, Math.floor(base / 2));
    while (groupCount(entries) >= 2 && region.budget - entriesTokens(entries) < l) take(shiftGroup(entries));
    if (region.budget - entriesTokens(entries) < 1) {
      const last = popGroup(entries);
      moved.push(...last);
      folded.push(...last);
    }
    limit = Math.min(l, region.budget - entriesTokens(entries));
  }

  const report: FoldReport = {
    region: region.name,
    ok: false,
    folded: folded.length,
    foldedTokens: entriesTokens(folded),
  };
  const text = yield* summaryOf(region.name, folded, limit, opts.prompt);
  let delivered: { text: CountedText; folded: Entry[]; append: boolean } | null = null;
  let error = 'error' in text ? text.error : undefined;
  if (!('error' in text) && history) {
    if (regionTokens(history) + text.tokens <= history.budget) {
      delivered = { text, folded, append: true };
    } else {
      const all = [...history.entries, draftSummary(text, folded, env)];
      const again = yield* summaryOf(history.name, all, Math.min(mst, history.budget), opts.prompt);
      if ('error' in again) error = again.error;
      else {
        delivered = { text: again, folded: all, append: false };
        report.historyResummarised = true;
      }
    }
  }

  if (error !== undefined) {
    region.foldFailures += 1;
    report.error = error;
    addDiagnostic(
      state,
      'compaction-failed',
      'warning',
      `folding ${folded.length} entries of region "${region.name}" failed: ${error}`,
    );
    if (region.foldFailures >= MAX_FOLD_FAILURES && region.pending.length > 0) {
      report.discarded = { entries: region.pending.length, tokens: entriesTokens(region.pending) };
      addDiagnostic(
        state,
        'compaction-discarded',
        'warning',
        `region "${region.name}" dropped ${region.pending.length} pending entries (${report.discarded.tokens} tokens) after ${region.foldFailures} failed folds`,
      );
      region.pending = [];
      region.foldFailures = 0;
    }
    return report;
  }

  region.pending = [];
  region.foldFailures = 0;
  if (history && delivered) {
    const summary = summaryEntry(state, delivered.text, delivered.folded, env);
    history.entries = delivered.append ? [...history.entries, summary] : [summary];
    region.entries = entries;
    report.deliveredTo = history.name;
    report.summaryTokens = summary.tokens;
  } else {
    const summary = summaryEntry(state, text as CountedText, folded, env);
    region.entries = [summary, ...entries];
    report.summaryTokens = summary.tokens;
  }
  report.ok = true;
  return report;
}
