/**
 * The events a run's workflows write to their stream (docs/reference/events.md),
 * built from what they already hold: a reply and the region bars after it, a
 * tool call and its effect, a gate's outcome, what an engine operation wrote,
 * evicted and folded, and a change of what a visit waits for. Summaries only: a preview of a
 * text, and a large one by its blob reference, never whole outputs. Pure;
 * bundled into workflow code.
 */
import { contentText } from '../context/measure.js';
import { CONVERSATION, type RunState } from '../context/state.js';
import type { Entry, RegionState, ToolCall } from '../shapes/content.js';
import type { NewEvent, RegionTokens } from '../shapes/run-events.js';
import { clipUnits } from '../truncate.js';
import type { InferOutput } from './activity-types.js';
import { callSubject } from './calls.js';
import type { AppliedOp, EvictionCause, WriteEviction } from './fleet-metrics.js';
import type { OpResults } from './ops.js';
import { waitingKind } from './people/status.js';
import type { AskDecision } from './people/updates.js';
import type { Progress, UsageTotals, WaitingKind } from './types.js';
import type { CallEffect } from './visit.js';

/** Characters of a reply or a result an event previews. */
export const PREVIEW_CHARS = 200;

/** The window by region as a turn ends, from the visit's progress. */
export function windowOf(progress: Pick<Progress, 'regions' | 'window'>): {
  used: number;
  max: number;
  regions: RegionTokens[];
} {
  return {
    used: progress.window.used,
    max: progress.window.max,
    regions: progress.regions.map((r) => ({
      region: r.name,
      tokens: r.tokens,
      ...(r.budget > 0 ? { budget: r.budget } : {}),
    })),
  };
}

/** A stored reply: the turn it ended, its preview, the window after it, its usage and estimated cost. */
export function turnEnded(
  at: { stage: string; turn: number; time: number },
  reply: Pick<InferOutput, 'content' | 'toolCalls' | 'invalidToolCalls' | 'usage' | 'model'>,
  progress: Pick<Progress, 'regions' | 'window'>,
  cost: number | null,
): NewEvent {
  const { promptTokens, completionTokens } = reply.usage;
  return {
    kind: 'turn-ended',
    ...at,
    ...(reply.model ? { model: reply.model } : {}),
    preview: clipUnits(contentText(reply.content), PREVIEW_CHARS),
    calls: reply.toolCalls.length + reply.invalidToolCalls.length,
    window: windowOf(progress),
    usage: {
      promptTokens,
      completionTokens,
      cacheReadTokens: reply.usage.cacheReadTokens,
      cacheWriteTokens: reply.usage.cacheWriteTokens,
    },
    ...(cost !== null ? { cost } : {}),
  };
}

/** A tool call as the model made it: its tool and short subject, never its whole arguments. */
export function toolCalled(at: { stage: string; turn: number; time: number }, call: ToolCall): NewEvent {
  return { kind: 'tool-call', ...at, call: call.id, tool: call.name, subject: callSubject(call) };
}

/** How a call was answered: whether it did what it was asked, a summary, and the blob of a large result. */
export function toolAnswered(
  at: { stage: string; turn: number; time: number },
  call: Pick<ToolCall, 'id' | 'name'>,
  effect: CallEffect,
): NewEvent {
  const base = { kind: 'tool-result' as const, ...at, call: call.id, tool: call.name };
  if (effect.kind === 'refused') return { ...base, ok: false, summary: 'refused: the stage was not given this tool' };
  const ok = !effect.isError;
  if (effect.kind !== 'builtin' || effect.content === undefined) return { ...base, ok, summary: ok ? 'ok' : 'error' };
  const content = effect.content;
  return {
    ...base,
    ok,
    summary: effect.denied ? 'denied' : clipUnits(contentText(content), PREVIEW_CHARS),
    ...(effect.tokens !== undefined ? { tokens: effect.tokens } : {}),
    ...(typeof content === 'string' ? {} : { blob: content.hash }),
  };
}

/** A stage visit began: the run's `visit`th. */
export function stageEntered(stage: string, visit: number, time: number): NewEvent {
  return { kind: 'stage-entered', time, stage, visit };
}

/** A stage visit ended, as its outcome says, with its turns, their usage and their cost (null: unpriced). */
export function stageLeft(
  stage: string,
  visit: number,
  end: string,
  time: number,
  spent: { turns: number; usage: UsageTotals; cost: number | null },
): NewEvent {
  const { promptTokens, completionTokens, cacheReadTokens, cacheWriteTokens } = spent.usage;
  return {
    kind: 'stage-left',
    time,
    stage,
    visit,
    end,
    turns: spent.turns,
    usage: { promptTokens, completionTokens, cacheReadTokens, cacheWriteTokens },
    ...(spent.cost !== null ? { cost: spent.cost } : {}),
  };
}

/** A stage's completion checks as it wanted to leave: passed, blocked, or let through after too many blocks. */
export function gateChecked(
  stage: string,
  target: string | null,
  gate: { outcome: 'pass' | 'block' | 'forced'; check?: string },
  time: number,
): NewEvent {
  return {
    kind: 'gate',
    time,
    stage,
    gate: gate.check ?? `to ${target ?? 'the end'}`,
    passed: gate.outcome !== 'block',
    ...(gate.outcome === 'forced' ? { detail: 'forced after too many blocked attempts' } : {}),
  };
}

/** Characters of a region write's text an event previews: enough to tell one entry from another. */
export const WRITE_PREVIEW_CHARS = 80;

/**
 * What the region set held before an operation, to tell what it wrote: the next entry id, and each
 * region's list of entries (a reference: a write replaces a region's list rather than change it).
 */
export interface WrittenBefore {
  nextId: number;
  entries: ReadonlyMap<string, readonly Entry[]>;
}

/** Takes the region set before an operation (`regionEvents` compares against it); costs one reference a region. */
export function entriesBefore(state: Pick<RunState, 'regions' | 'nextEntryId'>): WrittenBefore {
  return { nextId: state.nextEntryId, entries: new Map(state.regions.map((r) => [r.name, r.entries])) };
}

/** The entries of a region an operation wrote: new ones, and ones whose text it replaced (a key written again). */
function writtenIn(region: Pick<RegionState, 'name' | 'entries'>, before: WrittenBefore): Entry[] {
  const old = before.entries.get(region.name);
  if (old === undefined || old === region.entries) {
    // A list changed in place only had entries pushed onto its end (a seed, a checklist item).
    let from = region.entries.length;
    while (from > 0 && region.entries[from - 1]!.id >= before.nextId) from--;
    return region.entries.slice(from);
  }
  const held = new Map(old.map((e) => [e.id, e.content]));
  return region.entries.filter((e) => held.get(e.id) !== e.content);
}

const tokensOf = (entries: readonly Entry[]) => entries.reduce((sum, e) => sum + e.tokens, 0);

/** Entries that left a region, as one event; none when none left. */
function evictedEvent(region: string, entries: number, tokens: number, cause: EvictionCause, time: number): NewEvent[] {
  return entries > 0 ? [{ kind: 'evicted', time, region, entries, tokens, cause }] : [];
}

/**
 * What an engine operation did to the region set that a watcher is told (docs/reference/events.md):
 * the entries a tool, a seed or the runtime wrote or rewrote outside the conversation (whose writes
 * are the turn and tool events), what left a region to keep it within budget (the entries its
 * writes evicted, `writes`, as the engine told them), and each fold. Read from the operation's
 * result and the state after it, as the metrics are, so the engine and what history records are
 * unchanged. A stage entry's and a fold's own entries (stage prompts, summaries) are not writes.
 */
export function regionEvents(
  before: WrittenBefore,
  state: Pick<RunState, 'regions'>,
  op: AppliedOp,
  writes: readonly WriteEviction[],
  time: number,
): NewEvent[] {
  const events: NewEvent[] = [];
  if (op.call.kind !== 'maintain' && op.call.kind !== 'enterStage') {
    for (const region of state.regions) {
      if (region.name === CONVERSATION) continue;
      const written = writtenIn(region, before);
      const last = written.at(-1);
      if (!last) continue;
      events.push({
        kind: 'region-write',
        time,
        region: region.name,
        entries: written.length,
        tokens: tokensOf(written),
        ...(last.key !== undefined ? { key: last.key } : {}),
        preview: clipUnits(contentText(last.content), WRITE_PREVIEW_CHARS),
      });
    }
  }
  for (const w of writes) events.push(...evictedEvent(w.region, w.entries.length, tokensOf(w.entries), 'write', time));
  if (op.call.kind === 'maintain') {
    const report = op.result as OpResults['maintain'];
    for (const r of report.removed)
      events.push(...evictedEvent(r.region, r.entries.length, tokensOf(r.entries), 'cascade', time));
    for (const f of report.folds) {
      if (f.ok && f.folded === 0) continue;
      events.push({
        kind: 'folded',
        time,
        region: f.region,
        entries: f.folded,
        tokens: f.foldedTokens,
        ok: f.ok,
        ...(f.summaryTokens !== undefined ? { summaryTokens: f.summaryTokens } : {}),
        ...(f.error !== undefined ? { error: clipUnits(f.error, PREVIEW_CHARS) } : {}),
      });
      if (f.discarded)
        events.push(...evictedEvent(f.region, f.discarded.entries, f.discarded.tokens, 'fold-failure', time));
    }
  } else if (op.call.kind === 'enterStage') {
    const entered = op.result as OpResults['enterStage'];
    if (entered.ok)
      for (const r of entered.reduced)
        events.push(...evictedEvent(r.region, r.removed.length, tokensOf(r.removed), 'stage-entry', time));
  }
  return events;
}

/** What a visit waits for now, as its events tell it: the kind the progress query shows, and on what. */
export interface WaitMark {
  wait: WaitingKind;
  detail?: string;
  /** The calls a person's decision is awaited on, to tell how the wait ended. */
  calls?: string[];
}

/**
 * What a visit waits for (`waitingKind`), from what its people and its provider hold now. An ask a
 * person already decided waits no more, though the visit takes the decision only when it wakes.
 */
export function waitOf(
  w: Parameters<typeof waitingKind>[0] & { decisions: Readonly<Record<string, AskDecision>> },
): WaitMark | undefined {
  const asks = w.asks.filter((a) => w.decisions[a.call] === undefined);
  const wait = waitingKind({ ...w, asks });
  if (!wait) return undefined;
  if (wait === 'approval' || wait === 'answer' || wait === 'checkpoint') {
    const waiting = asks.filter((a) =>
      wait === 'approval' ? a.kind === 'approval' : wait === 'checkpoint' ? a.point !== undefined : a.kind === 'answer',
    );
    return {
      wait,
      detail: clipUnits(waiting.map((a) => a.subject).join('; '), PREVIEW_CHARS),
      calls: waiting.map((a) => a.call),
    };
  }
  if (wait === 'tool-worker-missing' && w.toolWorker) return { wait, detail: w.toolWorker.taskQueue };
  if (wait === 'provider-unavailable' && w.provider)
    return { wait, detail: clipUnits(`${w.provider.model}: ${w.provider.error}`, PREVIEW_CHARS) };
  return { wait };
}

/** How a wait ended: a person's decision on its calls (none: they timed out), else what ends its kind. */
function endOf(mark: WaitMark, decisions: Readonly<Record<string, AskDecision>>): string {
  if (mark.calls) {
    const kinds = [...new Set(mark.calls.map((c) => decisions[c]?.kind ?? 'timed-out'))];
    return kinds.join(', ');
  }
  if (mark.wait === 'message') return 'message';
  if (mark.wait === 'resume') return 'resumed';
  return 'over';
}

/** The events a change of what a visit waits for writes: the wait that ended, then the one that began. */
export function waitEvents(
  before: WaitMark | undefined,
  now: WaitMark | undefined,
  decisions: Readonly<Record<string, AskDecision>>,
  time: number,
): NewEvent[] {
  if (before?.wait === now?.wait && before?.detail === now?.detail) return [];
  return [
    ...(before ? [{ kind: 'wait-ended' as const, time, wait: before.wait, ended: endOf(before, decisions) }] : []),
    ...(now
      ? [{ kind: 'wait-started' as const, time, wait: now.wait, ...(now.detail ? { detail: now.detail } : {}) }]
      : []),
  ];
}
