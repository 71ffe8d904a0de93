/**
 * The context tools (docs/reference/context-tools.md): `context_*` and `todo_*`, answered by the
 * engine inside the workflow. They never throw: every failure is a result
 * whose text starts with `[code]`, and a failure changes nothing.
 */

import { formatCoded, type RuntimeCode } from '../errors.js';
import type { BlobRef, Content, Entry, RegionState } from '../shapes/content.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { CONTEXT_TOOLS } from '../tools/builtin-names.js';
import { groupAt, groupRanges } from './groups.js';
import { checkItemFits, checklistBody, findItem, items, notFoundItem, withNote } from './kinds/checklist.js';
import type { EngineEnv } from './kinds/custom.js';
import { behaviourOf } from './kinds/index.js';
import { contentText, entriesTokens, preview, regionTokens } from './measure.js';
import { count, type EngineOp, join } from './requests.js';
import { CONVERSATION, findRegion, type RunState, STAGE_INSTRUCTIONS, visibleRegions } from './state.js';
import { commitPlan, type NewEntry, planWrite, stampEntry, writeEntry } from './write.js';
import { type Failure, failure } from './write-failures.js';

export interface ToolResult {
  /** The answer; stored text only for a `context_read` of stored entries (`readsStored`). */
  content: Content;
  isError: boolean;
  code?: RuntimeCode;
  /** Set when the engine knows the result's count (a `context_read` of inline text), so it need not be counted again. */
  tokens?: number;
}

/**
 * Counts of the text arguments (`content`, `item`, `note`) made where the arguments were born
 * (docs/reference/regions.md#token-counting).
 */
export type ArgumentCounts = Partial<Record<'content' | 'item' | 'note', number>>;

/**
 * How a call's arguments arrived (docs/reference/regions.md#stored-arguments). `blobArgs` names
 * the arguments whose text the inference activity stored, their values being `BlobRef`s;
 * `readsStored` lets `context_read` answer the text of stored entries rather than their previews.
 */
export interface ContextToolOptions {
  blobArgs?: readonly string[];
  readsStored?: boolean;
}

type Args = Record<string, unknown>;

function fail(f: Failure): ToolResult {
  return { content: formatCoded(f.code, f.message), isError: true, code: f.code };
}

function ok(content: Content, tokens?: number): ToolResult {
  return tokens === undefined ? { content, isError: false } : { content, isError: false, tokens };
}

/** `1 entry`, `3 entries`. */
function countOf(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function usage(region: RegionState): string {
  return `${regionTokens(region)}/${region.budget} tokens`;
}

function refusesWrites(region: RegionState): boolean {
  return region.name === CONVERSATION || region.name === STAGE_INSTRUCTIONS || behaviourOf(region).holdsSummaries;
}

/** The regions this stage may name with `tool`, for `unknown-region` messages. */
function usableRegions(state: RunState, tool: string): RegionState[] {
  const visible = visibleRegions(state);
  if (tool.startsWith('todo_')) return visible.filter((r) => behaviourOf(r).entries === 'items');
  if (tool === 'context_write' || tool === 'context_append')
    return visible.filter((r) => !refusesWrites(r) && behaviourOf(r).entries !== 'items');
  if (tool === 'context_delete') return visible.filter((r) => !refusesWrites(r));
  return visible;
}

function present(args: Args, name: string): boolean {
  return args[name] !== undefined && args[name] !== null;
}

/** A required non-blank string argument. */
function text(args: Args, name: string): string | Failure {
  const v = args[name];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    return failure('missing-argument', `\`${name}\` is required; pass it as a non-empty string.`);
  }
  if (typeof v !== 'string') return failure('bad-argument', `\`${name}\` must be a string.`);
  return v;
}

function optionalKey(args: Args): string | undefined | Failure {
  const v = args.key;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') return failure('bad-argument', '`key` must be a string.');
  return v.trim() === '' ? undefined : v;
}

/** An item id: a JSON integer ≥ 1 or a string of decimal digits (docs/reference/context-tools.md#dispatch). */
function itemId(args: Args): number | Failure {
  const v = args.id;
  if (v === undefined || v === null || v === '')
    return failure('missing-argument', '`id` is required; pass the item number shown as #id.');
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim()) && Number(v.trim()) >= 1) return Number(v.trim());
  return failure('bad-argument', `\`id\` must be an item number such as 3, got ${JSON.stringify(v)}.`);
}

function isFailure(v: unknown): v is Failure {
  return typeof v === 'object' && v !== null && (v as Failure).ok === false;
}

/** A text argument the inference activity stored, with its count; null when the argument is inline. */
function storedArg(
  args: Args,
  name: 'content',
  counts: ArgumentCounts,
  opts: ContextToolOptions,
): { ref: BlobRef; tokens: number } | null {
  const v = args[name];
  const tokens = counts[name];
  if (!opts.blobArgs?.includes(name) || tokens === undefined || !isStoredRef(v)) return null;
  return { ref: v, tokens };
}

function isStoredRef(v: unknown): v is BlobRef {
  const ref = v as BlobRef | null;
  return (
    typeof ref === 'object' &&
    ref !== null &&
    typeof ref.hash === 'string' &&
    typeof ref.bytes === 'number' &&
    typeof ref.preview === 'string'
  );
}

/**
 * Whether the inference activity may store this call's `content` as a blob: a write to a
 * visible log region without a script, whose entries are only ever rendered, cut or
 * summarised, all of which read stored text (docs/reference/regions.md#stored-arguments).
 */
export function storesContent(state: RunState, tool: string, args: Record<string, unknown>): boolean {
  if (tool !== 'context_write' && tool !== 'context_append') return false;
  if (typeof args.region !== 'string') return false;
  const region = findRegion(state, args.region);
  if (!region || region.hidden || refusesWrites(region) || region.kind === 'custom') return false;
  return behaviourOf(region).entries === 'log';
}

function* argTokens(name: 'content' | 'item' | 'note', value: string, counts: ArgumentCounts): EngineOp<number> {
  return counts[name] ?? (yield* count(value));
}

/** Resolves `args.region` to a visible region this tool may use. */
function targetRegion(state: RunState, tool: string, args: Args): RegionState | Failure {
  const name = text(args, 'region');
  if (isFailure(name)) return name;
  const region = findRegion(state, name);
  if (!region) {
    const usable = usableRegions(state, tool).map((r) => r.name);
    const what = tool.startsWith('todo_') ? 'checklists' : 'regions';
    return failure(
      'unknown-region',
      `there is no region "${name}"; ${what} this stage can use with ${tool}: ${usable.join(', ') || 'none'}.`,
    );
  }
  if (region.hidden) {
    return failure(
      'hidden-region',
      `region "${name}" is not part of stage "${state.stage}"; use a region this stage carries.`,
    );
  }
  return region;
}

function notWritable(region: RegionState, tool: string): Failure | null {
  if (refusesWrites(region)) {
    return failure(
      'not-writable',
      `region "${region.name}" is maintained by the runtime and refuses ${tool}; write to another region.`,
    );
  }
  if (behaviourOf(region).entries === 'items' && tool !== 'context_delete') {
    return failure('not-writable', `region "${region.name}" is a checklist; add items with todo_add instead.`);
  }
  return null;
}

function notChecklist(region: RegionState): Failure | null {
  if (behaviourOf(region).entries === 'items') return null;
  return failure(
    'not-a-checklist',
    `region "${region.name}" is a ${region.kind}, not a checklist; declare it with kind = "checklist" to track items.`,
  );
}

function joinContents(entries: Entry[]): { content: string; tokens?: number } {
  const content = entries.map((e) => contentText(e.content)).join('\n\n');
  const inline = entries.every((e) => typeof e.content === 'string');
  // Each blank-line separator is charged one token (docs/reference/regions.md#token-counting).
  return inline ? { content, tokens: joinedTokens(entries) } : { content };
}

function joinedTokens(entries: Entry[]): number {
  return entriesTokens(entries) + Math.max(0, entries.length - 1);
}

/** The entries' full text, stored text included: one stored entry is its own answer, several are joined. */
function* readStored(entries: Entry[]): EngineOp<ToolResult> {
  const tokens = joinedTokens(entries);
  if (entries.length === 1) return ok(entries[0]!.content, tokens);
  const parts: Content[] = entries.flatMap((e, i) => (i === 0 ? [e.content] : ['\n\n', e.content]));
  return ok(yield* join(parts), tokens);
}

function* readEntries(entries: Entry[], opts: ContextToolOptions): EngineOp<ToolResult> {
  if (opts.readsStored && entries.some((e) => typeof e.content !== 'string')) return yield* readStored(entries);
  const joined = joinContents(entries);
  return ok(joined.content, joined.tokens);
}

/** The entry a `context_write` or `context_append` call asks to store: its counted content and optional key. */
function* entryArgs(
  region: RegionState,
  tool: 'context_write' | 'context_append',
  args: Args,
  counts: ArgumentCounts,
  opts: ContextToolOptions,
): EngineOp<NewEntry | Failure> {
  const refused = notWritable(region, tool);
  if (refused) return refused;
  const stored = storedArg(args, 'content', counts, opts);
  const content = stored ? stored.ref : text(args, 'content');
  if (isFailure(content)) return content;
  const key = optionalKey(args);
  if (isFailure(key)) return key;
  const tokens = stored ? stored.tokens : yield* argTokens('content', content as string, counts);
  const input: NewEntry = { content, tokens };
  if (key !== undefined) input.key = key;
  return input;
}

function* contextWrite(
  state: RunState,
  region: RegionState,
  args: Args,
  env: EngineEnv,
  counts: ArgumentCounts,
  opts: ContextToolOptions,
): EngineOp<ToolResult> {
  const input = yield* entryArgs(region, 'context_write', args, counts, opts);
  if (isFailure(input)) return fail(input);
  const key = input.key;
  if (behaviourOf(region).entries === 'keyed') {
    const r = yield* writeEntry(state, region.name, input, env);
    if (!r.ok) return fail(r);
    region.updates += 1;
    return ok(
      `Wrote key "${key}" in region "${region.name}"${r.removed.length ? `, evicting ${r.removed.length} least recently used entries` : ''}; ${usage(region)}.`,
    );
  }
  const kept = region.entries.filter((e) => e.stagePrompt !== undefined);
  const replaced = region.entries.length - kept.length + region.pending.length;
  const scratch: RegionState = { ...region, entries: kept, pending: [] };
  const plan = yield* planWrite(state, scratch, input, env);
  if (!plan.ok) return fail(plan);
  if (plan.entry === null)
    return ok(`Region "${region.name}"'s script declined the write; the region was left as it was.`);
  commitPlan(state, region, plan, env);
  region.updates += 1;
  const keyText = key === undefined ? '' : ` under key "${key}"`;
  return ok(
    `Replaced the content of region "${region.name}" (${replaced} entries released)${keyText}; ${usage(region)}.`,
  );
}

function* contextAppend(
  state: RunState,
  region: RegionState,
  args: Args,
  env: EngineEnv,
  counts: ArgumentCounts,
  opts: ContextToolOptions,
): EngineOp<ToolResult> {
  const input = yield* entryArgs(region, 'context_append', args, counts, opts);
  if (isFailure(input)) return fail(input);
  const key = input.key;
  if (behaviourOf(region).entries === 'keyed') input.appendToKey = true;
  const r = yield* writeEntry(state, region.name, input, env);
  if (!r.ok) return fail(r);
  if (r.declined) return ok(`Region "${region.name}"'s script declined the entry; nothing was stored.`);
  region.updates += 1;
  const parts = [`Appended to region "${region.name}"`];
  if (key !== undefined)
    parts.push(
      behaviourOf(region).entries === 'keyed' ? `key "${key}" ${r.created ? 'created' : 'extended'}` : `key "${key}"`,
    );
  if (r.removed.length > 0)
    parts.push(`${r.removed.length} older ${r.removed.length === 1 ? 'entry' : 'entries'} removed`);
  if (r.pending.length > 0)
    parts.push(`${r.pending.length} ${r.pending.length === 1 ? 'entry' : 'entries'} sent for summary`);
  return ok(`${parts.join('; ')}; ${usage(region)}.`);
}

function* contextRead(
  state: RunState,
  region: RegionState,
  args: Args,
  opts: ContextToolOptions,
): EngineOp<ToolResult> {
  const key = optionalKey(args);
  if (isFailure(key)) return fail(key);
  if (key !== undefined) {
    const hits = region.entries.filter((e) => e.key === key);
    if (hits.length === 0) {
      return fail(
        failure(
          'not-found',
          `region "${region.name}" has no entry with key "${key}"; it holds ${countOf(region.entries.length, 'entry', 'entries')} (see context_list).`,
        ),
      );
    }
    if (behaviourOf(region).entries === 'keyed') {
      state.clock += 1;
      region.entries = region.entries.map((e) => (e.key === key ? { ...e, touched: state.clock } : e));
    }
    return yield* readEntries(hits, opts);
  }
  if (region.entries.length === 0) return ok(`Region "${region.name}" is empty.`);
  if (behaviourOf(region).entries === 'keyed') {
    const lines = region.entries.map((e) => `${e.key ?? '(no key)'}: ${e.tokens} tokens`);
    return ok(`Keys in region "${region.name}" (${usage(region)}):\n${lines.join('\n')}`);
  }
  if (behaviourOf(region).entries === 'items') {
    const body = checklistBody(region);
    return ok(body === '' ? `Region "${region.name}" has no items.` : body);
  }
  return yield* readEntries(region.entries, opts);
}

function releaseMessage(region: RegionState, released: Entry[]): string {
  const what = released
    .map((e) => (e.key !== undefined ? `"${e.key}"` : e.checklist ? `#${e.checklist.id}` : `entry ${e.id}`))
    .join(', ');
  return `Released ${countOf(released.length, 'entry', 'entries')} (${what}), freeing ${entriesTokens(released)} tokens from region "${region.name}"; ${usage(region)}.`;
}

function contextDelete(state: RunState, region: RegionState, args: Args): ToolResult {
  const refused = notWritable(region, 'context_delete');
  if (refused) return fail(refused);
  const selectors = ['key', 'index', 'oldest'].filter((s) => present(args, s));
  if (selectors.length === 0)
    return fail(failure('missing-argument', 'give exactly one of `key`, `index` or `oldest` to say what to delete.'));
  if (selectors.length > 1)
    return fail(
      failure('bad-argument', `give only one of \`key\`, \`index\` or \`oldest\`, not ${selectors.join(' and ')}.`),
    );
  const entries = region.entries;
  let drop: Set<number>;
  if (selectors[0] === 'key') {
    const key = text(args, 'key');
    if (isFailure(key)) return fail(key);
    drop = new Set(entries.flatMap((e, i) => (e.key === key ? [i] : [])));
    if (drop.size === 0)
      return fail(
        failure(
          'not-found',
          `region "${region.name}" has no entry with key "${key}"; it holds ${countOf(entries.length, 'entry', 'entries')}.`,
        ),
      );
  } else if (selectors[0] === 'index') {
    const index = args.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      return fail(
        failure(
          'bad-argument',
          `\`index\` must be an integer of 0 or more as shown by context_list, got ${JSON.stringify(index)}.`,
        ),
      );
    }
    if (index >= entries.length) {
      return fail(
        failure(
          'not-found',
          `region "${region.name}" has ${countOf(entries.length, 'entry', 'entries')}, so there is no index ${index}.`,
        ),
      );
    }
    if (entries[index]!.stagePrompt !== undefined) {
      return fail(
        failure(
          'bad-argument',
          `entry ${index} of region "${region.name}" holds the stage instructions, which the runtime owns; delete another entry.`,
        ),
      );
    }
    const [start, end] = groupAt(entries, index);
    drop = new Set(Array.from({ length: end - start }, (_, i) => start + i));
  } else {
    const oldest = args.oldest;
    if (typeof oldest !== 'number' || !Number.isInteger(oldest) || oldest < 1) {
      return fail(
        failure('bad-argument', `\`oldest\` must be an integer of 1 or more, got ${JSON.stringify(oldest)}.`),
      );
    }
    drop = new Set();
    let taken = 0;
    for (const [start, end] of groupRanges(entries)) {
      if (taken >= oldest) break;
      if (entries[start]!.stagePrompt !== undefined) continue;
      for (let i = start; i < end; i++) drop.add(i);
      taken += 1;
    }
    // Releasing the oldest n of none releases none: the region is already as empty as asked.
    if (entries.length === 0)
      return ok(`Released 0 entries: region "${region.name}" is already empty; ${usage(region)}.`);
    if (drop.size === 0) {
      return fail(
        failure(
          'not-found',
          `region "${region.name}" has nothing to delete: it holds only the stage instructions, which the runtime owns.`,
        ),
      );
    }
  }
  const released = entries.filter((_, i) => drop.has(i));
  region.entries = entries.filter((_, i) => !drop.has(i));
  state.clock += 1;
  region.updates += 1;
  return ok(releaseMessage(region, released));
}

function entryLine(e: Entry, index: number): string {
  const parts = [`[${index}]`];
  if (e.checklist) parts.push(`#${e.checklist.id} ${e.checklist.done ? 'done' : 'open'}`);
  if (e.key !== undefined) parts.push(`key=${e.key}`);
  parts.push(`${e.tokens} tokens`);
  if (e.summary) parts.push(`summary of ${e.foldedEntries ?? 0} entries`);
  if (e.stagePrompt !== undefined) parts.push('stage instructions');
  parts.push(`: ${preview(e.content, 60)}`);
  return parts.join(' ');
}

function regionLine(r: RegionState): string {
  const parts = [`${r.name} (${r.kind}): ${countOf(r.entries.length, 'entry', 'entries')}, ${usage(r)}`];
  if (r.def.admission === 'reject') parts.push('reject');
  if (behaviourOf(r).entries === 'items') parts.push(countOf(openCount(r), 'open item', 'open items'));
  return parts.join(', ');
}

function contextList(state: RunState, args: Args): ToolResult {
  if (!present(args, 'region')) {
    return ok(`Regions in stage "${state.stage}":\n${visibleRegions(state).map(regionLine).join('\n')}`);
  }
  const region = targetRegion(state, 'context_list', args);
  if (isFailure(region)) return fail(region);
  const header = regionLine(region);
  if (region.entries.length === 0) return ok(`${header}\n(empty)`);
  return ok(`${header}\n${region.entries.map(entryLine).join('\n')}`);
}

function openCount(region: RegionState): number {
  return items(region).filter((e) => !e.checklist!.done).length;
}

function* todoAdd(
  state: RunState,
  region: RegionState,
  args: Args,
  env: EngineEnv,
  counts: ArgumentCounts,
): EngineOp<ToolResult> {
  const item = text(args, 'item');
  if (isFailure(item)) return fail(item);
  const tokens = yield* argTokens('item', item, counts);
  const refused = checkItemFits(region, tokens);
  if (refused) return fail(refused);
  const entry = stampEntry(state, { content: item, tokens }, env);
  entry.checklist = { id: region.nextItemId, done: false, noteTokens: 0 };
  region.nextItemId += 1;
  region.entries.push(entry);
  region.updates += 1;
  return ok(
    `Added item #${entry.checklist.id} to "${region.name}"; ${countOf(openCount(region), 'open item', 'open items')}.`,
  );
}

function todoDone(state: RunState, region: RegionState, args: Args): ToolResult {
  const id = itemId(args);
  if (isFailure(id)) return fail(id);
  const item = findItem(region, id);
  if (!item) return fail(notFoundItem(region, id));
  region.updates += 1;
  if (item.checklist!.done)
    return ok(`Item #${id} was already done; ${countOf(openCount(region), 'open item', 'open items')}.`);
  state.clock += 1;
  region.entries = region.entries.map((e) =>
    e === item ? { ...e, touched: state.clock, checklist: { ...e.checklist!, done: true } } : e,
  );
  return ok(`Marked item #${id} done; ${countOf(openCount(region), 'open item', 'open items')}.`);
}

function* todoNote(state: RunState, region: RegionState, args: Args, counts: ArgumentCounts): EngineOp<ToolResult> {
  const id = itemId(args);
  if (isFailure(id)) return fail(id);
  const note = text(args, 'note');
  if (isFailure(note)) return fail(note);
  const item = findItem(region, id);
  if (!item) return fail(notFoundItem(region, id));
  const next = withNote(region, item, note, yield* argTokens('note', note, counts));
  if (isFailure(next)) return fail(next);
  state.clock += 1;
  region.entries = region.entries.map((e) => (e === item ? { ...next, touched: state.clock } : e));
  region.updates += 1;
  return ok(`Set the note of item #${id}.`);
}

/**
 * Applies one context tool call. `counts` carries the token counts of the
 * text arguments when the caller already has them; missing ones are asked for.
 * `opts` says which arguments arrived stored and how `context_read` answers stored entries.
 */
export function* applyContextTool(
  state: RunState,
  _bp: Blueprint,
  tool: string,
  args: unknown,
  env: EngineEnv,
  counts: ArgumentCounts = {},
  opts: ContextToolOptions = {},
): EngineOp<ToolResult> {
  if (!(CONTEXT_TOOLS as readonly string[]).includes(tool)) {
    return fail(failure('unknown-tool', `"${tool}" is not a context tool; use one of ${CONTEXT_TOOLS.join(', ')}.`));
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return fail(failure('bad-argument', `${tool} takes an object of named arguments.`));
  }
  const a = args as Args;
  if (tool === 'context_list') return contextList(state, a);
  const region = targetRegion(state, tool, a);
  if (isFailure(region)) return fail(region);
  if (tool.startsWith('todo_')) {
    const refused = notChecklist(region);
    if (refused) return fail(refused);
  }
  switch (tool) {
    case 'context_write':
      return yield* contextWrite(state, region, a, env, counts, opts);
    case 'context_append':
      return yield* contextAppend(state, region, a, env, counts, opts);
    case 'context_read':
      return yield* contextRead(state, region, a, opts);
    case 'context_delete':
      return contextDelete(state, region, a);
    case 'todo_add':
      return yield* todoAdd(state, region, a, env, counts);
    case 'todo_done':
      return todoDone(state, region, a);
    default:
      return yield* todoNote(state, region, a, counts);
  }
}
