/**
 * Prompt assembly (docs/reference/rendering.md): a pure function of the visible regions. Blocks
 * come from every kind except sliding windows, ordered so the most
 * cache-friendly content comes first; each goes to the system section or,
 * by its region's placement, to the tail message rebuilt after the
 * conversation. Messages come from sliding windows, with `conversation`
 * last and the entries of regions that write in place among its messages
 * (`layout.ts`). Blob references pass through untouched; the inference
 * activity resolves them.
 */

import { grantsSortKey, systemSortKey } from '../blueprint/block-order.js';
import { stageModel } from '../blueprint/stage-layouts.js';
import type { BlobRef, Content, Entry, PromptMessage, PromptSystemBlock, RegionState } from '../shapes/content.js';
import type { Blueprint, Placement, RegionDef } from '../shapes/frozen-blueprint.js';
import { kindFacts } from '../shapes/region-kinds.js';
import { type MarkedBlock, placeCacheMarkers } from './cache-markers.js';
import { checklistBody } from './kinds/checklist.js';
import { type CustomRegionHooks, type EngineEnv, regionCtx } from './kinds/custom.js';
import { behaviourOf } from './kinds/index.js';
import { laidOut } from './layout.js';
import { contentText } from './measure.js';
import { CONVERSATION, type RunState, STAGE_INSTRUCTIONS, visibleRegions, windowUsed } from './state.js';

/** Entries of a `grows` region are packed into blocks of at most this many tokens. */
export const GROWS_BLOCK_TOKENS = 2048;

export const BEGIN_MESSAGE = 'Begin working on the task described above.';
export const CONTINUE_MESSAGE = 'Continue.';

export interface RenderFailure {
  code: 'custom-render-failed' | 'custom-render-over-budget';
  severity: 'warning';
  detail: string;
}

/**
 * How rendering measures what a custom region's `render` returns: the inference activity's
 * tokenizer (rendering itself is pure and has none). Without one the output is not measured.
 */
export interface RenderMeter {
  count(text: string): number;
  /** The longest prefix of `text` that, with `marker` after it, counts at most `tokens` (`cutToTokens`). */
  cut(text: string, tokens: number, marker: string): string;
}

export interface RenderedPrompt {
  system: PromptSystemBlock[];
  messages: PromptMessage[];
  /** Changes whenever the system section's content may have changed. */
  systemKey: string;
  /**
   * Custom renders that failed and fell back to the default rendering, or were cut to their
   * region's budget. Rendering never changes the state, so the caller records these as diagnostics.
   */
  failures: RenderFailure[];
}

export interface RenderContext {
  stage: string;
  /** Inference count within the current stage visit, for custom `render`. */
  iteration: number;
  model: string;
  window: { used: number; max: number };
  hooks?: EngineEnv['hooks'];
  /** Measures custom renders against their region's budget. */
  meter?: RenderMeter;
  /** The stage's grants, when the request offers the run's tools (`GRANTS_BLOCK`). */
  grantNote?: string;
}

export interface RenderOptions {
  /**
   * Shown to custom `render` as `stage.iteration`: the inferences already made
   * in the current visit, so a visit's first prompt renders with 0 (default).
   */
  iteration?: number;
  /** Measures custom renders against their region's budget (docs/reference/regions.md#custom-region-hooks). */
  meter?: RenderMeter;
  /**
   * The stage's grants (`grantNote` in src/runtime/run-tools.ts), given when the request offers the
   * run's tools rather than the stage's (docs/reference/rendering.md#the-tool-list).
   */
  grantNote?: string;
}

/**
 * The label of the system block that states the stage's grants. It sits right after the stage
 * instructions, which change with the stage too, so the blocks before them stay the prefix.
 * The parentheses keep it apart from every region name.
 */
export const GRANTS_BLOCK = '(stage tools)';

/** Renders what the next inference of the current stage receives. */
export function renderPrompt(state: RunState, bp: Blueprint, env: EngineEnv, opts: RenderOptions = {}): RenderedPrompt {
  const model = stageModel(bp, state.stage);
  return renderRegions(visibleRegions(state), {
    stage: state.stage,
    iteration: opts.iteration ?? 0,
    model,
    window: { used: windowUsed(state), max: state.window.max },
    hooks: env.hooks,
    ...(opts.meter ? { meter: opts.meter } : {}),
    ...(opts.grantNote ? { grantNote: opts.grantNote } : {}),
  });
}

interface SortedBlock extends MarkedBlock {
  cls: number;
  order: number;
  key: string;
  placement: Placement;
}

function isStageInstructions(region: Pick<RegionDef, 'name'>): boolean {
  return region.name === STAGE_INSTRUCTIONS;
}

/** Builds a block's text from strings and blob references, merging adjacent strings. */
class BlockText {
  readonly parts: Content[] = [];

  add(part: Content): void {
    if (typeof part === 'string') {
      if (part.length === 0) return;
      const last = this.parts[this.parts.length - 1];
      if (typeof last === 'string') this.parts[this.parts.length - 1] = last + part;
      else this.parts.push(part);
    } else {
      this.parts.push(part);
    }
  }
}

function heading(region: RegionState, continued: boolean): string {
  if (continued) return `## ${region.name} (continued)\n`;
  const description = region.def.describeInPrompt ? region.def.description?.trim() : undefined;
  return description ? `## ${region.name}\n${description}\n\n` : `## ${region.name}\n`;
}

function summaryLine(entry: Entry): string {
  const n = entry.foldedEntries ?? 0;
  return `[summary of ${n} earlier ${n === 1 ? 'entry' : 'entries'}]\n`;
}

function addEntry(text: BlockText, entry: Entry, first: boolean): void {
  if (!first) text.add('\n\n');
  if (entry.key !== undefined) text.add(`### ${entry.key}\n`);
  if (entry.summary) text.add(summaryLine(entry));
  text.add(entry.content);
}

/** Default rendering of one system-block region: one block, or several for `grows`. */
function defaultBlocks(region: RegionState, shown: readonly Entry[]): { parts: Content[]; key: string }[] {
  if (behaviourOf(region).entries === 'items') {
    const body = checklistBody(region);
    if (body === '') return [];
    const key = region.entries
      .filter((e) => e.checklist)
      .map(
        (e) =>
          `${e.id}${e.checklist?.done ? 'x' : 'o'}${e.checklist?.noteTokens ?? 0}.${e.checklist?.note?.length ?? 0}`,
      )
      .join(',');
    return [{ parts: [heading(region, false) + body], key }];
  }
  if (shown.length === 0) return [];
  const groups: Entry[][] = [];
  if (region.def.volatility === 'grows' && !isStageInstructions(region)) {
    let current: Entry[] = [];
    let tokens = 0;
    for (const entry of shown) {
      if (current.length > 0 && tokens + entry.tokens > GROWS_BLOCK_TOKENS) {
        groups.push(current);
        current = [];
        tokens = 0;
      }
      current.push(entry);
      tokens += entry.tokens;
    }
    if (current.length > 0) groups.push(current);
  } else {
    groups.push([...shown]);
  }
  return groups.map((entries, i) => {
    const text = new BlockText();
    text.add(heading(region, i > 0));
    entries.forEach((entry, j) => {
      addEntry(text, entry, j === 0);
    });
    return { parts: text.parts, key: entries.map((e) => `${e.id}.${e.tokens}.${e.touched}`).join(',') };
  });
}

type CustomOutput = { system: string[]; messages: PromptMessage[] };

/** Accepts exactly the two shapes docs/reference/regions.md#custom-region-hooks allows for a `render` return value. */
function parseCustomOutput(value: unknown): CustomOutput | string {
  if (typeof value === 'string') return { system: value === '' ? [] : [value], messages: [] };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'render must return a string or a map with `system` and `messages`';
  }
  const record = value as Record<string, unknown>;
  const system: string[] = [];
  if (typeof record.system === 'string') {
    if (record.system !== '') system.push(record.system);
  } else if (Array.isArray(record.system)) {
    for (const s of record.system) {
      if (typeof s !== 'string') return '`system` must be a string or an array of strings';
      if (s !== '') system.push(s);
    }
  } else if (record.system !== undefined) {
    return '`system` must be a string or an array of strings';
  }
  const messages: PromptMessage[] = [];
  if (record.messages !== undefined) {
    if (!Array.isArray(record.messages)) return '`messages` must be an array';
    for (const m of record.messages) {
      const message = m as Record<string, unknown> | null;
      const role = message?.role;
      if ((role !== 'user' && role !== 'assistant') || typeof message?.content !== 'string') {
        return 'each message must be a map with `role` "user" or "assistant" and a string `content`';
      }
      messages.push({ role, content: message.content });
    }
  }
  return { system, messages };
}

function customRender(
  region: RegionState,
  hooks: CustomRegionHooks | undefined,
  ctx: RenderContext,
): CustomOutput | string {
  if (!hooks) return 'no compiled script is available for this region';
  const result = hooks.render({
    region: regionCtx(region),
    entries: region.entries.map((e) => ({
      content: contentText(e.content),
      kind: e.kind,
      key: e.key ?? null,
      tokens: e.tokens,
      summary: e.summary === true,
    })),
    stage: { name: ctx.stage, iteration: ctx.iteration },
    model: ctx.model,
    window: { used: ctx.window.used, max: ctx.window.max },
  });
  if (!result.ok) return result.error;
  return parseCustomOutput(result.value);
}

/**
 * What a custom render may add beside its region's budget: the framing around the entries (tags,
 * a heading), which no other kind is charged for either, and room for the line that says a render
 * was cut.
 */
export const CUSTOM_RENDER_FRAMING_TOKENS = 64;

/**
 * A custom render within its region's budget (plus its framing): its system texts, then its
 * messages, kept while they fit; the first that does not is cut with a `[custom-render-over-budget]`
 * line the model reads, and the rest is left out. `cut` says what happened, for the run's diagnostics.
 */
function fitToBudget(
  region: RegionState,
  output: CustomOutput,
  meter: RenderMeter,
): { output: CustomOutput; cut?: string } {
  const counts = [...output.system, ...output.messages.map((m) => m.content)].map((t) => meter.count(t));
  const total = counts.reduce((a, b) => a + b, 0);
  const allowed = region.budget + CUSTOM_RENDER_FRAMING_TOKENS;
  if (total <= allowed) return { output };
  const cut = `region ${region.name} rendered ${total} tokens, over its budget of ${region.budget}`;
  const marker = `\n[custom-render-over-budget] ${cut}; the rest was cut.`;
  let left = allowed;
  let i = 0;
  const within = (text: string): string => {
    const n = counts[i++] as number;
    if (left <= 0) return '';
    if (n <= left) {
      left -= n;
      return text;
    }
    const kept = meter.cut(text, left, marker);
    left = 0;
    return kept;
  };
  const system = output.system.map(within).filter((t) => t !== '');
  const messages = output.messages.map((m) => ({ ...m, content: within(m.content) })).filter((m) => m.content !== '');
  return { output: { system, messages }, cut };
}

/** Cheap, deterministic fingerprint of script output; not a security hash. */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${text.length}:${h.toString(36)}`;
}

function entryMessage(entry: Entry): PromptMessage {
  const blob: BlobRef | undefined = typeof entry.content === 'string' ? undefined : entry.content;
  const content = contentText(entry.content);
  let message: PromptMessage;
  if (entry.kind === 'assistant') {
    message = entry.toolCalls?.length
      ? { role: 'assistant', content, toolCalls: entry.toolCalls }
      : { role: 'assistant', content };
  } else if (entry.kind === 'tool_result') {
    message = { role: 'tool', toolCallId: entry.toolCallId ?? '', toolName: entry.toolName ?? '', content };
    if (entry.isError) message.isError = true;
  } else {
    message = { role: 'user', content: entry.summary && !blob ? summaryLine(entry) + content : content };
  }
  if (blob) message.blob = blob;
  return message;
}

function isBlank(message: PromptMessage): boolean {
  return message.content.trim().length === 0 && message.blob === undefined;
}

/**
 * docs/reference/rendering.md#messages steps 2 and 3: a call survives only with a later result for it,
 * and a result only after its call. Each call is paired with the first
 * result that answers it; a call id repeated before an answer arrives
 * leaves the earlier call orphaned.
 */
export function postProcessMessages(input: readonly PromptMessage[]): PromptMessage[] {
  const messages = input.filter(
    (m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls?.length) || !isBlank(m),
  );
  const open = new Map<string, number>();
  const paired = new Set<string>();
  const keep = messages.map((m, i) => {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.set(c.id, i);
    if (m.role !== 'tool') return true;
    const at = open.get(m.toolCallId);
    if (at === undefined) return false;
    open.delete(m.toolCallId);
    paired.add(`${at}:${m.toolCallId}`);
    return true;
  });
  const out: PromptMessage[] = [];
  messages.forEach((m, i) => {
    if (!keep[i]) return;
    if (m.role !== 'assistant' || !m.toolCalls?.length) {
      out.push(m);
      return;
    }
    const calls = m.toolCalls.filter((c) => paired.has(`${i}:${c.id}`));
    if (calls.length === m.toolCalls.length) {
      out.push(m);
      return;
    }
    const { toolCalls: _stripped, ...rest } = m;
    if (calls.length > 0) out.push({ ...rest, toolCalls: calls });
    else if (!isBlank(rest)) out.push(rest);
  });
  return out;
}

/** The rendering itself, over regions already known to be visible, in effective order. */
export function renderRegions(regions: readonly RegionState[], ctx: RenderContext): RenderedPrompt {
  const blocks: SortedBlock[] = [];
  const customMessages: PromptMessage[] = [];
  const windowMessages: PromptMessage[] = [];
  const conversation: StreamItem[] = [];
  const inPlace: StreamItem[] = [];
  const failures: RenderFailure[] = [];

  regions.forEach((region, order) => {
    if (kindFacts(region.kind).renders === 'messages') {
      for (const entry of region.entries) {
        if (region.name === CONVERSATION) conversation.push({ at: entry.id, message: entryMessage(entry) });
        else windowMessages.push(entryMessage(entry));
      }
      return;
    }
    const [rank, cls] = systemSortKey(region.def, order);
    // A definition without a placement was loaded before the tail existed: its run keeps the system section.
    const placement = region.def.placement ?? 'system';
    const push = (parts: Content[], key: string) => {
      blocks.push({
        block: { region: region.name, text: parts },
        cls,
        rank,
        order,
        key,
        placement,
      });
    };
    if (kindFacts(region.kind).renders === 'script') {
      const rendered = customRender(region, ctx.hooks?.(region.name), ctx);
      if (typeof rendered !== 'string') {
        const { output, cut } = ctx.meter ? fitToBudget(region, rendered, ctx.meter) : { output: rendered };
        if (cut) failures.push({ code: 'custom-render-over-budget', severity: 'warning', detail: cut });
        for (const text of output.system) push([text], `c${fingerprint(text)}`);
        customMessages.push(...output.messages);
        return;
      }
      failures.push({
        code: 'custom-render-failed',
        severity: 'warning',
        detail: `region ${region.name}: ${rendered}`,
      });
    }
    const shown = laidOut(region);
    for (const entry of shown.inPlace) inPlace.push({ at: entry.id, message: inPlaceMessage(region, entry) });
    for (const b of defaultBlocks(region, shown.block)) push(b.parts, b.key);
  });

  if (ctx.grantNote) blocks.push(grantsBlock(ctx.grantNote, regions));
  blocks.sort((a, b) => a.rank - b.rank || a.cls - b.cls || a.order - b.order);
  const system = blocks.filter((b) => b.placement === 'system');
  const tail = blocks.filter((b) => b.placement === 'tail');
  const systemKey = system.map((b) => `${b.block.region}[${b.key}]`).join('|');

  let messages = postProcessMessages([...customMessages, ...windowMessages, ...conversation.map((c) => c.message)]);
  // The kick-off leads the messages rather than trailing them, so each turn is appended after
  // the previous request's messages instead of being inserted before a re-added last message.
  if (messages[0]?.role !== 'user') messages = [{ role: 'user', content: BEGIN_MESSAGE }, ...messages];
  if (inPlace.length > 0) messages = interleave(messages, conversation, inPlace);
  if (messages[messages.length - 1]?.role === 'assistant')
    messages = [...messages, { role: 'user', content: CONTINUE_MESSAGE }];

  placeCacheMarkers(system, messages);
  if (tail.length > 0) messages = [...messages, tailMessage(tail.map((b) => b.block))];
  return { system: system.map((b) => b.block), messages, systemKey, failures };
}

/**
 * The stage's grants as a system block of the stage instructions' class, after them (after
 * every region's block of that class when there is no instructions region).
 */
function grantsBlock(note: string, regions: readonly RegionState[]): SortedBlock {
  const at = regions.findIndex(isStageInstructions);
  const [rank, cls, order] = grantsSortKey(at >= 0 ? at : regions.length);
  return { block: { region: GRANTS_BLOCK, text: [note] }, rank, cls, order, key: note, placement: 'system' };
}

/** A message of the conversation, or one rendered where a region's write happened, by entry id. */
interface StreamItem {
  /** The entry id it follows. */
  at: number;
  message: PromptMessage;
}

/** A user message of block text, with its blob references in `parts` for the inference activity. */
function userMessage(parts: readonly Content[]): Extract<PromptMessage, { role: 'user' }> {
  const content = parts.map(contentText).join('');
  return parts.every((p) => typeof p === 'string')
    ? { role: 'user', content }
    : { role: 'user', content, parts: [...parts] };
}

/** An entry written in place, headed by its region (docs/reference/rendering.md#writes-in-place). */
function inPlaceMessage(region: RegionState, entry: Entry): PromptMessage {
  const text = new BlockText();
  text.add(`## ${region.name} (new entry)\n`);
  addEntry(text, entry, true);
  return userMessage(text.parts);
}

/**
 * docs/reference/rendering.md#writes-in-place: puts each in-place message after the conversation
 * messages written before it. One that falls among an assistant's tool calls and their results
 * waits until the results are all in, since providers want them together.
 */
function interleave(
  messages: PromptMessage[],
  conversation: readonly StreamItem[],
  inPlace: StreamItem[],
): PromptMessage[] {
  const at = new Map(conversation.map((c) => [c.message, c.at]));
  const pending = inPlace.sort((a, b) => a.at - b.at);
  const out: PromptMessage[] = [];
  let held: PromptMessage[] = [];
  let next = 0;
  const inToolRun = () => {
    const last = out[out.length - 1];
    return last?.role === 'tool' || (last?.role === 'assistant' && (last.toolCalls?.length ?? 0) > 0);
  };
  for (const message of messages) {
    const id = at.get(message);
    if (id !== undefined) {
      while (next < pending.length && pending[next]!.at < id) held.push(pending[next++]!.message);
    }
    if (held.length > 0 && !(inToolRun() && message.role === 'tool')) {
      out.push(...held);
      held = [];
    }
    out.push(message);
  }
  while (next < pending.length) held.push(pending[next++]!.message);
  return [...out, ...held];
}

/**
 * docs/reference/rendering.md#tail: the blocks placed in the tail, joined by a blank line
 * into one user message after the conversation. It is rebuilt for every
 * request and never stored, so it changes without moving anything before it.
 */
function tailMessage(blocks: readonly PromptSystemBlock[]): PromptMessage {
  const text = new BlockText();
  blocks.forEach((block, i) => {
    if (i > 0) text.add('\n\n');
    for (const part of block.text) text.add(part);
  });
  return { ...userMessage(text.parts), tail: true };
}

/** A system block as one string, with blob references shown by their preview. */
export function systemBlockText(block: PromptSystemBlock): string {
  return block.text.map(contentText).join('');
}
