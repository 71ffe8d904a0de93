/**
 * Writes (docs/reference/regions.md). A write is planned against the region without
 * touching it and committed only when it succeeds, so a failing write leaves
 * the region, the window and the clock exactly as they were.
 */

import type { Content, Entry, EntryKind, RegionState, ToolCall } from '../shapes/content.js';
import { groupRanges, joinedGroupStart } from './groups.js';
import { callOnOverflow, callOnWrite, type EngineEnv, hooksFor } from './kinds/custom.js';
import { upsert } from './kinds/hashmap.js';
import { behaviourOf, kindBehaviour } from './kinds/index.js';
import { applyStrategy, maxItems } from './kinds/sliding-window.js';
import { regionTokens } from './measure.js';
import { count, type EngineOp } from './requests.js';
import { addDiagnostic, CONVERSATION, findRegion, type RunState } from './state.js';
import { type Failure, failure, regionFull, tooLarge } from './write-failures.js';

export interface NewEntry {
  content: Content;
  tokens: number;
  kind?: EntryKind;
  key?: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  seeded?: boolean;
  runtime?: boolean;
  /** Hashmaps only: append to the key's text (docs/reference/regions.md#hashmap-upserts) instead of replacing it. */
  appendToKey?: boolean;
}

export interface WriteSuccess {
  ok: true;
  region: string;
  /** The stored entry; null when a custom region's script declined it. */
  entry: Entry | null;
  declined: boolean;
  /** Hashmaps: whether the key was new. Other kinds: true when something was stored. */
  created: boolean;
  /** Entries discarded to make room (or by the window's strategy). */
  removed: Entry[];
  /** Entries moved to pending, to be folded at the next maintenance point. */
  pending: Entry[];
  used: number;
  max: number;
}

export type WriteResult = WriteSuccess | Failure;

/** A planned write: the region's new lists, ready to commit. */
export interface WritePlan {
  entries: Entry[];
  pending: Entry[];
  entry: Entry | null;
  created: boolean;
  removed: Entry[];
  sentToPending: Entry[];
  /** Whether the plan used the state's next entry id. */
  usedId: boolean;
}

export type WritePlanResult = ({ ok: true } & WritePlan) | Failure;

function buildEntry(state: RunState, input: NewEntry, env: EngineEnv, stamp: number): Entry {
  const entry: Entry = {
    id: state.nextEntryId,
    content: input.content,
    tokens: input.tokens,
    kind: input.kind ?? 'text',
    created: stamp,
    touched: stamp,
    at: env.now,
  };
  if (input.key !== undefined) entry.key = input.key;
  if (input.toolCalls !== undefined) entry.toolCalls = input.toolCalls;
  if (input.toolCallId !== undefined) entry.toolCallId = input.toolCallId;
  if (input.toolName !== undefined) entry.toolName = input.toolName;
  if (input.isError !== undefined) entry.isError = input.isError;
  if (input.seeded) entry.seeded = true;
  if (input.runtime) entry.runtime = true;
  return entry;
}

function joinContent(old: Content, next: Content): string | null {
  return typeof old === 'string' && typeof next === 'string' ? `${old}\n${next}` : null;
}

function planHashmap(state: RunState, region: RegionState, input: NewEntry, env: EngineEnv): WritePlanResult {
  const key = input.key;
  if (key === undefined || key.trim() === '') {
    return failure('key-required', `region "${region.name}" is a hashmap; give a \`key\` to write or append to it.`);
  }
  const stamp = state.clock + 1;
  const old = region.entries.find((e) => e.key === key);
  let content = input.content;
  let tokens = input.tokens;
  if (input.appendToKey && old) {
    const joined = joinContent(old.content, input.content);
    if (joined === null) {
      return failure(
        'not-appendable',
        `key "${key}" in region "${region.name}" holds stored file content; replace it with context_write instead.`,
      );
    }
    content = joined;
    // The newline separator is charged one token (docs/reference/regions.md#token-counting).
    tokens = old.tokens + 1 + input.tokens;
  }
  let usedId = false;
  const outcome = upsert(region, key, tokens, (previous) => {
    if (previous) return { ...previous, content, tokens, touched: stamp, at: env.now };
    usedId = true;
    return buildEntry(state, { ...input, content, tokens }, env, stamp);
  });
  if (!outcome.ok) return outcome;
  return {
    ok: true,
    entries: outcome.entries,
    pending: [...region.pending],
    entry: outcome.entry,
    created: outcome.created,
    removed: outcome.removed,
    sentToPending: [],
    usedId,
  };
}

/**
 * Once a write has had to evict, keeps taking the oldest groups until the
 * region plus the new entry fits under its low-water mark, so the region's
 * head (and every prompt block behind it) changes once per chunk rather
 * than on every write. The group the new entry joins is never taken.
 */
function shedToLowWater(
  region: RegionState,
  entries: Entry[],
  incoming: number,
  joining: Pick<Entry, 'kind' | 'toolCallId'>,
  into: Entry[],
): void {
  const shedTo = region.def.shedTo;
  if (shedTo === undefined) return;
  const mark = Math.floor(region.budget * shedTo);
  while (regionTokens({ entries }) + incoming > mark) {
    const first = groupRanges(entries)[0];
    if (!first || first[0] === joinedGroupStart(entries, joining)) return;
    into.push(...entries.splice(0, first[1]));
  }
}

/**
 * Plans a write into `region` (which may be a scratch copy, as for
 * `context_write`). Never mutates the state, except to record a failing
 * custom script.
 */
export function* planWrite(
  state: RunState,
  region: RegionState,
  input: NewEntry,
  env: EngineEnv,
): EngineOp<WritePlanResult> {
  const behaviour = kindBehaviour(region.kind);
  if (behaviour.overflow(region.def, false) === 'lru') return planHashmap(state, region, input, env);

  let next = input;
  const hooks = hooksFor(env, region);
  if (hooks) {
    const verdict = callOnWrite(hooks, region, {
      content: input.content,
      kind: input.kind ?? 'text',
      key: input.key,
      tokens: input.tokens,
    });
    if (verdict.action === 'decline') {
      return {
        ok: true,
        entries: [...region.entries],
        pending: [...region.pending],
        entry: null,
        created: false,
        removed: [],
        sentToPending: [],
        usedId: false,
      };
    }
    if (verdict.action === 'failed')
      addDiagnostic(state, 'custom-script-failed', 'warning', `region "${region.name}" on_write: ${verdict.error}`);
    if (verdict.action === 'replace')
      next = { ...input, content: verdict.content, tokens: yield* count(verdict.content) };
  }

  const t = next.tokens;
  const max = region.budget;
  if (t > max) {
    // The caller learns of the refusal, but nobody reads a refused user message back: the operator must see it.
    if (region.name === CONVERSATION && next.kind === 'user')
      addDiagnostic(
        state,
        'user-message-too-large',
        'warning',
        `a user message of ${t} tokens was not stored: region "${CONVERSATION}" has a budget of ${max} tokens; raise its budget or send a shorter message`,
      );
    return tooLarge(region, t);
  }

  const entries = [...region.entries];
  const pending = [...region.pending];
  const removed: Entry[] = [];
  const sentToPending: Entry[] = [];
  const reject = region.def.admission === 'reject';
  const isWindow = behaviourOf(region).windowed;
  const used = () => regionTokens({ entries });
  const itemsFit = !(isWindow && reject) || entries.length + 1 <= maxItems(region.def);

  if (used() + t > max || !itemsFit) {
    if (reject) {
      return itemsFit
        ? regionFull(region, used(), max)
        : regionFull(region, entries.length, maxItems(region.def), 'items', 'max_items');
    }
    const rule = behaviour.overflow(region.def, hooks?.onOverflow !== undefined);
    const joining = { kind: next.kind ?? 'text', toolCallId: next.toolCallId };
    const joined = joinedGroupStart(entries, joining);
    if (rule === 'discard' || rule === 'pending') {
      while (used() + t > max) {
        const first = groupRanges(entries)[0];
        if (!first || first[0] === joinedGroupStart(entries, joining))
          return regionFull(region, regionTokens(region), max);
        const taken = entries.splice(0, first[1]);
        (rule === 'pending' ? sentToPending : removed).push(...taken);
      }
      shedToLowWater(region, entries, t, joining, rule === 'pending' ? sentToPending : removed);
    } else if (rule === 'hook' && hooks) {
      const needed = used() + t - max;
      const answer = callOnOverflow(hooks, region, needed);
      if (!answer.ok) {
        addDiagnostic(state, 'custom-script-failed', 'warning', `region "${region.name}" on_overflow: ${answer.error}`);
        return regionFull(region, used(), max);
      }
      const drop = new Set<number>();
      for (const index of answer.indices) {
        for (const [start, end] of groupRanges(entries)) {
          if (index >= start && index < end && start !== joined) for (let i = start; i < end; i++) drop.add(i);
        }
      }
      const freed = entries.filter((_, i) => drop.has(i));
      if (freed.reduce((a, e) => a + e.tokens, 0) < needed) return regionFull(region, used(), max);
      removed.push(...freed);
      for (let i = entries.length - 1; i >= 0; i--) if (drop.has(i)) entries.splice(i, 1);
    } else {
      return regionFull(region, used(), max);
    }
  }

  const stamp = state.clock + 1;
  const entry = buildEntry(state, next, env, stamp);
  entries.push(entry);
  pending.push(...sentToPending);
  if (isWindow && !reject) {
    const protectFrom = joinedGroupStart(entries.slice(0, -1), entry) ?? entries.length - 1;
    const outcome = applyStrategy(region.def, entries, protectFrom);
    removed.push(...outcome.removed);
    sentToPending.push(...outcome.pending);
    pending.push(...outcome.pending);
  }
  return { ok: true, entries, pending, entry, created: true, removed, sentToPending, usedId: true };
}

/**
 * Creates an entry outside the write path (stage prompts, summaries, seeds):
 * takes the next id and bumps the clock.
 */
export function stampEntry(state: RunState, input: NewEntry, env: EngineEnv): Entry {
  const entry = buildEntry(state, input, env, state.clock + 1);
  state.clock += 1;
  state.nextEntryId += 1;
  return entry;
}

/** Commits a successful plan to `region` and advances the clock; `env.onEvict` hears what it evicted. */
export function commitPlan(state: RunState, region: RegionState, plan: WritePlan, env: EngineEnv): void {
  region.entries = plan.entries;
  region.pending = plan.pending;
  if (plan.entry !== null) {
    state.clock += 1;
    if (plan.usedId) state.nextEntryId += 1;
  }
  if (plan.removed.length > 0) env.onEvict?.(region, plan.removed);
}

export function success(region: RegionState, plan: WritePlan): WriteSuccess {
  return {
    ok: true,
    region: region.name,
    entry: plan.entry,
    declined: plan.entry === null,
    created: plan.created,
    removed: plan.removed,
    pending: plan.sentToPending,
    used: regionTokens(region),
    max: region.budget,
  };
}

export function unknownRegion(state: RunState, name: string): Failure {
  const names = state.regions.filter((r) => !r.hidden).map((r) => r.name);
  return failure(
    'unknown-region',
    `there is no region "${name}"; regions in this stage: ${names.join(', ') || 'none'}.`,
  );
}

/** Writes one entry to a region through its kind's rules (docs/reference/regions.md). */
export function* writeEntry(
  state: RunState,
  regionName: string,
  input: NewEntry,
  env: EngineEnv,
): EngineOp<WriteResult> {
  const region = findRegion(state, regionName);
  if (!region) return unknownRegion(state, regionName);
  const plan = yield* planWrite(state, region, input, env);
  if (!plan.ok) return plan;
  commitPlan(state, region, plan, env);
  return success(region, plan);
}
