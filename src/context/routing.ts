/**
 * Tool-result routing (docs/reference/routing.md): caps, the target region, the storage
 * ladder (whole, cut to the room left, placeholder, nothing) and the
 * pointer that tells the agent in `conversation` where its output went.
 */

import type { Content, CountedText, Entry, RegionState, ToolCall } from '../shapes/content.js';
import type { Blueprint, ToolRouting } from '../shapes/frozen-blueprint.js';
import { kindFacts } from '../shapes/region-kinds.js';
import { toolFacts } from '../shapes/tool-catalogue.js';
import { canonicalTool, isContextTool } from '../tools/builtin-names.js';
import { clipUnits } from '../truncate.js';
import { joinedGroupTokens } from './groups.js';
import type { EngineEnv } from './kinds/custom.js';
import { behaviourOf } from './kinds/index.js';
import { contentText, regionTokens } from './measure.js';
import { count, cut, type EngineOp } from './requests.js';
import { CONVERSATION, findRegion, type RunState, visibleRegions } from './state.js';
import { type NewEntry, writeEntry } from './write.js';

/** A cut smaller than this is not worth keeping; a placeholder is stored instead (docs/reference/routing.md#ladder). */
export const MIN_CUT_ROOM = 100;
/** Characters of the output a pointer repeats. */
export const POINTER_PREVIEW_CHARS = 160;

export type RouteOutcome = 'stored' | 'cut' | 'placeholder' | 'dropped';

export interface ToolOutput {
  content: Content;
  tokens: number;
  isError: boolean;
}

export interface RouteResult {
  /** The region the output was meant for. */
  region: string;
  outcome: RouteOutcome;
  /** The pointer stored in `conversation`, when the target is another region. */
  pointer?: string;
  /** One line for the caller: the pointer, or where the result went. */
  text: string;
  /** Tokens the cap or the ladder cut away. */
  dropped: number;
}

interface Stored {
  outcome: RouteOutcome;
  tokens: number;
}

/** The cap in tokens for `tool` in a stage (docs/reference/routing.md#caps step 2). */
export function resultCap(routing: ToolRouting | undefined, tool: string): number | undefined {
  if (!routing) return undefined;
  const name = canonicalTool(tool);
  return routing.maxResultTokensPerTool[name] ?? routing.overrides[name]?.maxResultTokens ?? routing.maxResultTokens;
}

/**
 * The region a result of `tool` goes to (docs/reference/routing.md#routing-table and docs/reference/routing.md#ladder).
 */
export function routeTarget(state: RunState, routing: ToolRouting | undefined, tool: string): string {
  if (!routing || isContextTool(tool)) return CONVERSATION;
  const target = routing.overrides[canonicalTool(tool)]?.region ?? routing.defaultRegion;
  if (!routing.persist && target !== CONVERSATION && visibleRegions(state).some((r) => r.name === 'scratch'))
    return 'scratch';
  return target;
}

function routingOf(state: RunState, bp: Blueprint): ToolRouting | undefined {
  return bp.stages.find((s) => s.name === state.stage)?.toolRouting;
}

/** docs/reference/routing.md#ladder room: what a write could free by evicting, or what is free now. */
function roomFor(region: RegionState, entry: Pick<Entry, 'kind' | 'toolCallId'>): number {
  const evicts =
    region.def.admission === 'evict' && (behaviourOf(region).entries === 'keyed' || kindFacts(region.kind).rolling);
  if (evicts) return region.budget - joinedGroupTokens(region.entries, entry);
  return region.budget - regionTokens(region);
}

/** Stores text in `region` through the ladder: whole, cut to the room, placeholder, nothing. */
function* ladder(state: RunState, name: string, entry: NewEntry, env: EngineEnv): EngineOp<Stored> {
  const whole = yield* writeEntry(state, name, entry, env);
  if (whole.ok) return { outcome: 'stored', tokens: entry.tokens };

  const region = findRegion(state, name);
  const room = region ? roomFor(region, { kind: entry.kind ?? 'text', toolCallId: entry.toolCallId }) : 0;
  if (room > MIN_CUT_ROOM) {
    const fitted: CountedText = yield* cut(
      entry.content,
      entry.tokens,
      room,
      `region ${name} had room for ${room} tokens`,
    );
    const written = yield* writeEntry(state, name, { ...entry, content: fitted.content, tokens: fitted.tokens }, env);
    if (written.ok) return { outcome: 'cut', tokens: fitted.tokens };
  }

  const placeholder = `[result omitted: region ${name} is full]`;
  const tokens = yield* count(placeholder);
  const written = yield* writeEntry(state, name, { ...entry, content: placeholder, tokens }, env);
  return written.ok ? { outcome: 'placeholder', tokens } : { outcome: 'dropped', tokens: 0 };
}

/** Writes may replace region objects, so the counter is bumped on a fresh lookup. */
function countUpdate(state: RunState, name: string, stored: Stored): void {
  const region = findRegion(state, name);
  if (region && stored.outcome !== 'dropped') region.updates++;
}

function previewOf(content: Content): string {
  const text = contentText(content);
  return clipUnits(text, POINTER_PREVIEW_CHARS);
}

function pointerText(
  target: string,
  original: number,
  stored: Stored,
  capped: { cap: number } | null,
  content: Content,
): string {
  const preview = previewOf(content);
  switch (stored.outcome) {
    case 'stored':
      if (capped) {
        return `[output cut to the ${capped.cap}-token cap and stored in region ${target}; ${original - stored.tokens} tokens were dropped. The kept part is already in your context. Preview:]\n${preview}`;
      }
      return `[output stored in region ${target} (${original} tokens); it is already in your context, so no further call is needed to read it. Preview:]\n${preview}`;
    case 'cut':
      return `[only the beginning of the output fitted in region ${target}; ${original - stored.tokens} of ${original} tokens were dropped. Free space with context_delete before another fetch of similar size. Preview:]\n${preview}`;
    default:
      return `[output not kept: region ${target} had no room for it, so only this preview remains. Free space with context_delete and repeat the call to see it. Preview:]\n${preview}`;
  }
}

function conversationText(stored: Stored, original: number, capped: { cap: number } | null): string {
  switch (stored.outcome) {
    case 'stored':
      if (capped)
        return `cut to the ${capped.cap}-token cap and stored in ${CONVERSATION} (${stored.tokens} of ${original} tokens kept)`;
      return `stored in ${CONVERSATION} (${stored.tokens} tokens)`;
    case 'cut':
      return `cut into ${CONVERSATION} (${stored.tokens} of ${original} tokens kept)`;
    case 'placeholder':
      return `${CONVERSATION} is full; a placeholder was stored instead`;
    default:
      return `${CONVERSATION} is full; nothing was stored`;
  }
}

/**
 * Routes one tool result through the current stage's caps, target, ladder
 * and pointer. The assistant turn carrying the call must already be in
 * `conversation`.
 */
export function* routeToolResult(
  state: RunState,
  bp: Blueprint,
  call: ToolCall,
  result: ToolOutput,
  env: EngineEnv,
): EngineOp<RouteResult> {
  const routing = routingOf(state, bp);
  const tool = canonicalTool(call.name);
  const target = routeTarget(state, routing, call.name);
  const region = findRegion(state, target);
  if (!region || region.hidden) {
    return {
      region: target,
      outcome: 'dropped',
      text: `region ${target} is not visible in stage ${state.stage}; the result was not stored`,
      dropped: result.tokens,
    };
  }

  let content = result.content;
  let tokens = result.tokens;
  const cap = resultCap(routing, call.name);
  let capped: { cap: number } | null = null;
  if (cap !== undefined && tokens > cap) {
    const fitted = yield* cut(content, tokens, cap, `the stage caps ${tool} output at ${cap} tokens`);
    content = fitted.content;
    tokens = fitted.tokens;
    capped = { cap };
  }

  if (target === CONVERSATION) {
    const entry: NewEntry = {
      kind: 'tool_result',
      content,
      tokens,
      toolCallId: call.id,
      toolName: call.name,
      isError: result.isError,
    };
    const stored = yield* ladder(state, target, entry, env);
    countUpdate(state, target, stored);
    const outcome = capped && stored.outcome === 'stored' ? 'cut' : stored.outcome;
    return {
      region: target,
      outcome,
      text: conversationText(stored, result.tokens, capped),
      dropped: result.tokens - stored.tokens,
    };
  }

  const entry: NewEntry = { kind: 'text', content, tokens };
  if (behaviourOf(region).entries === 'keyed') {
    const path = call.arguments.path;
    entry.key = typeof path === 'string' && path.length > 0 ? path : `${tool}:${call.id}`;
  }
  const stored = yield* ladder(state, target, entry, env);
  countUpdate(state, target, stored);

  const pointer = pointerText(target, result.tokens, stored, capped, result.content);
  const pointerTokens = yield* count(pointer);
  yield* writeEntry(
    state,
    CONVERSATION,
    {
      kind: 'tool_result',
      content: pointer,
      tokens: pointerTokens,
      toolCallId: call.id,
      toolName: call.name,
      isError: result.isError,
    },
    env,
  );
  const outcome = capped && stored.outcome === 'stored' ? 'cut' : stored.outcome;
  return { region: target, outcome, pointer, text: pointer, dropped: result.tokens - stored.tokens };
}

/**
 * docs/reference/routing.md#path-hints: a hint for a failing path tool whose path names a visible
 * region, or that hit a directory. Undefined when no hint applies.
 */
export function pathToolHint(
  state: RunState,
  tool: string,
  args: Record<string, unknown>,
  error: string,
): string | undefined {
  if (!toolFacts(canonicalTool(tool))?.takesPath) return undefined;
  const paths = [args.path, ...(Array.isArray(args.paths) ? args.paths : [])].filter(
    (p): p is string => typeof p === 'string',
  );
  for (const path of paths) {
    const last =
      path
        .replace(/[\\/]+$/, '')
        .split(/[\\/]/)
        .at(-1) ?? '';
    if (visibleRegions(state).some((r) => r.name === last)) {
      return `${last} is a context region already in your prompt, not a file; use context_read with region "${last}" to read it.`;
    }
  }
  if (/is a directory|EISDIR/i.test(error)) return 'That path is a directory; use list_dir to see what it holds.';
  return undefined;
}
