/**
 * Who a sub-agent is (docs/reference/sub-agents.md): its workflow id, its lineage and the
 * ceilings it inherits, and which blueprint it runs (what it starts with is
 * `worker-spec.ts`). Pure: imported by workflow code.
 */
import { CONVERSATION, type RunState, visibleRegions } from '../../context/state.js';
import type { EntryKind } from '../../shapes/content.js';
import { type Blueprint, FINAL_OUTPUT, STAGE_INSTRUCTIONS } from '../../shapes/frozen-blueprint.js';
import type { ChildRun, Lineage } from '../types.js';

/** Longest workflow-id segment an item id may become once encoded. */
export const MAX_ID_SEGMENT = 255;

/** How deep sub-agents nest when the blueprint does not say (`[agent] max_child_depth`). */
export const DEFAULT_MAX_CHILD_DEPTH = 3;

/**
 * One segment of a child's workflow id: letters, digits, `_` and `-` stay,
 * every other character becomes `%XX` per UTF-8 byte. Injective, and never
 * holds `/` (which separates parent from child) or `.` (which separates a
 * run from its stage visits), whatever id the model chose.
 */
export function idSegment(id: string): string {
  let out = '';
  for (const ch of id) {
    if (/^[A-Za-z0-9_-]$/.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of utf8(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** UTF-8 bytes of one code point, without TextEncoder (not in every workflow sandbox). */
function utf8(ch: string): number[] {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/** A worker's workflow id: `<parent run id>/<encoded item id>`. */
export function childRunId(parentRunId: string, id: string): string {
  return `${parentRunId}/${idSegment(id)}`;
}

/**
 * The longest workflow id a run starts: Temporal's SQL stores (PostgreSQL,
 * MySQL) keep workflow ids in `VARCHAR(255)` columns, far below the server's
 * own `limit.maxIDLength` of 1,000, and SQLite does not check the width, so
 * only a real server finds a longer one (docs/reference/sub-agents.md#ids).
 */
export const MAX_WORKFLOW_ID = 255;

/** Characters the shortened form keeps after its prefix: `~` and 16 hex digits. */
const HASH_SUFFIX = 17;

/** True when a SQL store takes `id` as a workflow id: at most `MAX_WORKFLOW_ID` characters. */
export function fitsWorkflowId(id: string): boolean {
  return [...id].length <= MAX_WORKFLOW_ID;
}

/**
 * `id` when it fits, else its first characters and `~` with a 64-bit FNV-1a
 * hash of the whole id, `MAX_WORKFLOW_ID` characters in all. The prefix keeps
 * the path readable (a nested worker still starts with its run's id); the
 * hash keeps two long ids with the same prefix apart. Encoded item ids never
 * hold `~`, so a shortened id cannot equal a worker's full one.
 */
export function boundedWorkflowId(id: string): string {
  const chars = [...id];
  if (chars.length <= MAX_WORKFLOW_ID) return id;
  return `${chars.slice(0, MAX_WORKFLOW_ID - HASH_SUFFIX).join('')}~${fnv1a64(id)}`;
}

const FNV_PRIME = 0x100000001b3n;
const FNV_OFFSET = 0xcbf29ce484222325n;
const MASK_64 = 0xffffffffffffffffn;

/** FNV-1a over the UTF-8 bytes, as 16 hex digits: pure, so workflow code can call it on replay. */
function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (const ch of text) {
    for (const byte of utf8(ch)) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, '0');
}

export function topLineage(bp: Blueprint): Lineage {
  return { maxDepth: bp.agent.maxChildDepth ?? DEFAULT_MAX_CHILD_DEPTH, ceiling: [] };
}

/** A child of a run at `parent`, started from `stage` of the blueprint `blueprintHash`. */
export function childLineage(parent: Lineage, blueprintHash: string, stage: string): Lineage {
  return { maxDepth: parent.maxDepth, ceiling: [...parent.ceiling, { blueprintHash, stage }] };
}

/** How many levels below the first run a run is. */
export function depthOf(lineage: Lineage): number {
  return lineage.ceiling.length;
}

/** Which blueprint a child runs, with the hash of the tree's first (whose catalog holds the agents). */
export function childBlueprintOf(child: ChildRun): { root: string; blueprint: ChildBlueprint } {
  const first = child.lineage.ceiling[0];
  const parent = child.lineage.ceiling.at(-1);
  if (!first || !parent) throw new Error(`sub-agent of ${child.parentRunId} has no ancestors in its lineage`);
  return {
    root: first.blueprintHash,
    blueprint: child.agent !== undefined ? { agent: child.agent } : { hash: parent.blueprintHash },
  };
}

/** Which blueprint a child runs: the spawning run's own, or an agent of the root's catalog (by its key). */
export type ChildBlueprint = { hash: string } | { agent: string };

/** A shard's workflow id: `~` is encoded in every item id, so no worker can have it. */
export function shardRunId(runId: string, k: number): string {
  return `${runId}/~shard-${k + 1}`;
}

/**
 * Where `spawn_agent {seed_context}` lands in the child: the first pinned
 * region it shows (never `stage_instructions` or `final_output`), else the
 * conversation as a user turn.
 */
export function seedContextTarget(state: RunState): { region: string; kind: EntryKind } {
  const pinned = visibleRegions(state).find(
    (r) => r.kind === 'pinned' && r.name !== STAGE_INSTRUCTIONS && r.name !== FINAL_OUTPUT,
  );
  return pinned ? { region: pinned.name, kind: 'text' } : { region: CONVERSATION, kind: 'user' };
}
