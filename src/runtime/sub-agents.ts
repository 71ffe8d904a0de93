/**
 * The decisions of sub-agents and fan-out (docs/reference/sub-agents.md), as
 * pure functions of plain data: reading the arguments of the agent tools,
 * which blueprint or stage a call may start, a child's workflow id, the
 * order in which a fan-out starts its workers, and how each worker's end
 * reads in the merged report. The workflow (`workflows/sub-agents.ts`)
 * only sequences them with child workflows. Pure: imported by workflow code.
 */

import { CONVERSATION, type RunState, visibleRegions } from '../context/state.js';
import { formatCoded, type RuntimeCode } from '../errors.js';
import type { Blueprint, OutputSpec, StageDef } from '../shapes/blueprint.js';
import type { Content, EntryKind } from '../shapes/content.js';
import type { Spend } from './spend.js';
import type { RunInput, RunOptions } from './types.js';

/** Most items one `fan_out` call takes. */
export const MAX_FAN_OUT_ITEMS = 10_000;
/** Longest item id, in characters. */
export const MAX_ITEM_ID_CHARS = 200;
/** Longest workflow-id segment an item id may become once encoded. */
const MAX_ID_SEGMENT = 255;
/** How deep sub-agents nest when the blueprint does not say (`[agent] max_child_depth`). */
export const DEFAULT_MAX_CHILD_DEPTH = 3;

/** A refusal the model reads as the tool's result; the run goes on. */
export interface ToolRefusal {
  ok: false;
  code: RuntimeCode;
  message: string;
}

export function toolRefusalText(r: ToolRefusal): string {
  return formatCoded(r.code, r.message);
}

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

/** A layer of the ceiling a run's tools stay under: an ancestor's blueprint and the stage that started the line. */
export interface CeilingLayer {
  blueprintHash: string;
  stage: string;
}

/**
 * Where a run sits in its tree of agents: every ancestor's blueprint and
 * spawning stage, oldest first. A run a person started has none (depth 0);
 * the first layer's blueprint is the tree's first, which holds the catalog.
 * Kept this small because it travels in every child's input.
 */
export interface Lineage {
  /** The deepest a descendant may be (the first run's `[agent] max_child_depth`). */
  maxDepth: number;
  /** Every ancestor's blueprint and spawning stage: a child's permissions, reads and commands never exceed theirs. */
  ceiling: CeilingLayer[];
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

/** What a child run receives besides its task (`RunInput.child`). */
export interface ChildRun {
  parentRunId: string;
  /** The catalog key of the blueprint it runs; absent: its parent's own blueprint (a `worker_stage`). */
  agent?: string;
  /** Start at this stage instead of the blueprint's entry stage. */
  stage?: string;
  lineage: Lineage;
  /** `spawn_agent {seed_context}`: written into the child's first pinned region after its seeds. */
  seedContext?: string;
  /** `spawn_agent {output_format, output_instructions}`: the answer the child is asked for. */
  output?: OutputSpec;
}

/**
 * What every worker of one fan-out shares: its blueprint, start stage and
 * lineage, the workdir and the run options. The visit stores it once as a
 * blob, and each worker's start carries its hash and the worker's own task
 * (`WorkerInput`), so the parent's history grows by the task, not by the
 * share (docs/reference/sub-agents.md#history).
 */
export interface WorkerShare {
  child: Omit<ChildRun, 'seedContext' | 'output'>;
  workdir: string;
  options: RunOptions;
}

/** A fan-out worker's whole input: what it shares with its siblings, and its own task. */
export function workerRunInput(share: WorkerShare, task: string): RunInput {
  return { child: share.child, task, caller: {}, workdir: share.workdir, options: share.options };
}

/** A fan-out worker's start: the hash of its `WorkerShare` and its task. */
export interface WorkerInput {
  shared: string;
  task: string;
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

/** What a call may start: a stage of the running blueprint, or an agent the blueprint names. */
export interface WorkerTarget {
  blueprint: ChildBlueprint;
  stage?: string;
  /** The name the call or the blueprint used, for the report and the Web UI. */
  label: string;
}

/** The running blueprint as the agent tools see it. */
export interface Spawner {
  bp: Blueprint;
  blueprintHash: string;
  lineage: Lineage;
}

/**
 * The target of `{agent}` or `{stage}`: an agent must be one the blueprint
 * names (`worker_agent`, `[agent] sub_agents`), a stage must allow it.
 */
export function resolveTarget(sp: Spawner, ask: { agent?: string; stage?: string }): WorkerTarget | ToolRefusal {
  const depth = depthOf(sp.lineage);
  if (depth + 1 > sp.lineage.maxDepth)
    return {
      ok: false,
      code: 'agent-depth-exceeded',
      message: `this run is ${depth} level${depth === 1 ? '' : 's'} below the first, and sub-agents may nest at most ${sp.lineage.maxDepth} deep ([agent] max_child_depth); do the work in this run.`,
    };
  if (ask.stage !== undefined) {
    const def = sp.bp.stages.find((s) => s.name === ask.stage);
    const allowed = sp.bp.stages.filter((s) => s.allowAsWorker).map((s) => s.name);
    if (!def)
      return {
        ok: false,
        code: 'agent-unknown',
        message: `there is no stage "${ask.stage}"; stages that can run as a worker: ${allowed.join(', ') || 'none'}.`,
      };
    if (!def.allowAsWorker)
      return {
        ok: false,
        code: 'worker-stage-not-allowed',
        message: `stage "${def.name}" does not run as a worker (it lacks allow_as_worker = true); use one of: ${allowed.join(', ') || 'none'}.`,
      };
    return { blueprint: { hash: sp.blueprintHash }, stage: def.name, label: def.name };
  }
  const name = ask.agent ?? '';
  const refs = sp.bp.agentRefs ?? {};
  const key = Object.hasOwn(refs, name) ? refs[name] : undefined;
  if (key === undefined)
    return {
      ok: false,
      code: 'agent-unknown',
      message: `this blueprint names no agent "${name}"; the agents it can start: ${Object.keys(refs).join(', ') || 'none (list them in [agent] sub_agents)'}.`,
    };
  return { blueprint: { agent: key }, label: name };
}

/** The worker a fan-out stage names, as a target of its own `fan_out` call. */
export function stageWorker(sp: Spawner, fanOut: NonNullable<StageDef['fanOut']>): WorkerTarget | ToolRefusal {
  return resolveTarget(sp, 'stage' in fanOut.worker ? { stage: fanOut.worker.stage } : { agent: fanOut.worker.agent });
}

/** One work item of a `fan_out` call. */
export interface FanOutItem {
  id: string;
  /** Everything the worker gets: its task. */
  task: string;
}

function bad(code: RuntimeCode, message: string): ToolRefusal {
  return { ok: false, code, message };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An item's context as its worker's task: text as it is, anything else as indented JSON. */
export function taskText(context: unknown): string {
  return typeof context === 'string' ? context : JSON.stringify(context, null, 2);
}

/** Reads `{agent | stage}` of a call, which must name exactly one. */
function askedTarget(
  args: Record<string, unknown>,
  tool: string,
  noun: string,
): { agent?: string; stage?: string } | ToolRefusal {
  const agent = args.agent ?? args.blueprint;
  const { stage } = args;
  if (agent !== undefined && typeof agent !== 'string')
    return bad('bad-argument', `${tool}: \`${noun}\` must be a string.`);
  if (stage !== undefined && typeof stage !== 'string')
    return bad('bad-argument', `${tool}: \`stage\` must be a string.`);
  if ((agent === undefined) === (stage === undefined))
    return bad(
      agent === undefined ? 'missing-argument' : 'bad-argument',
      `${tool} needs exactly one of \`${noun}\` (another blueprint) and \`stage\` (a stage of this blueprint with allow_as_worker).`,
    );
  return agent !== undefined ? { agent: agent as string } : { stage: stage as string };
}

/**
 * The items of a `fan_out` call, checked: an array of objects with a unique
 * non-empty `id` and a `context`; at most `maxItems` (and never more than
 * 10,000). An empty array is a valid answer: there is nothing to hand out.
 */
export function readItems(args: Record<string, unknown>, maxItems?: number): FanOutItem[] | ToolRefusal {
  const { items } = args;
  if (items === undefined) return bad('missing-argument', 'fan_out needs `items`, an array of {id, context}.');
  if (!Array.isArray(items)) return bad('bad-argument', 'fan_out: `items` must be an array of {id, context} objects.');
  const limit = Math.min(MAX_FAN_OUT_ITEMS, maxItems && maxItems > 0 ? maxItems : MAX_FAN_OUT_ITEMS);
  if (items.length > limit)
    return bad(
      'fan-out-too-many',
      `fan_out was given ${items.length} items and takes at most ${limit}${limit < MAX_FAN_OUT_ITEMS ? " (the stage's max_items)" : ''}; merge items so fewer workers are needed.`,
    );
  const out: FanOutItem[] = [];
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (!isObject(item))
      return bad(
        'bad-argument',
        `fan_out: item ${i} is not an object; give each item as {"id": "...", "context": ...}.`,
      );
    const raw = item.id;
    const id = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof id !== 'string' || id.trim() === '')
      return bad('bad-argument', `fan_out: item ${i} needs an \`id\`, a non-empty string that names it in the report.`);
    if ([...id].length > MAX_ITEM_ID_CHARS || idSegment(id).length > MAX_ID_SEGMENT)
      return bad(
        'bad-argument',
        `fan_out: the id of item ${i} is too long for a workflow id; use at most ${MAX_ITEM_ID_CHARS} characters, fewer when they are not letters, digits, _ or -.`,
      );
    if (seen.has(id))
      return bad('bad-argument', `fan_out: two items share the id "${id}"; give every item its own id.`);
    seen.add(id);
    if (!Object.hasOwn(item, 'context'))
      return bad('missing-argument', `fan_out: item "${id}" has no \`context\`; it is everything its worker gets.`);
    out.push({ id, task: taskText(item.context) });
  }
  return out;
}

/** A checked `fan_out` call: who works, on what. */
export interface FanOutCall {
  target: WorkerTarget;
  items: FanOutItem[];
}

/**
 * A `fan_out` call of stage `def`. A fan-out stage takes its worker and caps
 * from the blueprint; elsewhere the call names `agent` or `stage`.
 */
export function readFanOut(sp: Spawner, def: StageDef, args: Record<string, unknown>): FanOutCall | ToolRefusal {
  const target = def.fanOut ? stageWorker(sp, def.fanOut) : targetOf(sp, args, 'fan_out', 'agent');
  if ('ok' in target) return target;
  const items = readItems(args, def.fanOut?.maxItems);
  if ('ok' in items) return items;
  return { target, items };
}

function targetOf(sp: Spawner, args: Record<string, unknown>, tool: string, noun: string): WorkerTarget | ToolRefusal {
  const asked = askedTarget(args, tool, noun);
  if ('ok' in asked) return asked;
  return resolveTarget(sp, asked);
}

/** A checked `spawn_agent` call. */
export interface SpawnCall {
  target: WorkerTarget;
  task: string;
  seedContext?: string;
  output?: OutputSpec;
  wait: boolean;
}

function optionalString(args: Record<string, unknown>, key: string, tool: string): string | undefined | ToolRefusal {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') return bad('bad-argument', `${tool}: \`${key}\` must be a string.`);
  return v;
}

export function readSpawn(sp: Spawner, args: Record<string, unknown>): SpawnCall | ToolRefusal {
  const target = targetOf(sp, args, 'spawn_agent', 'blueprint');
  if ('ok' in target) return target;
  if (args.task === undefined) return bad('missing-argument', 'spawn_agent needs `task`: what the agent should do.');
  const task = args.task;
  const fields: Record<string, string | undefined> = {};
  for (const key of ['seed_context', 'output_format', 'output_instructions']) {
    const v = optionalString(args, key, 'spawn_agent');
    if (typeof v === 'object') return v;
    fields[key] = v;
  }
  if (args.wait !== undefined && typeof args.wait !== 'boolean')
    return bad('bad-argument', 'spawn_agent: `wait` must be true (return its answer) or false (return its id).');
  const output: OutputSpec = {};
  if (fields.output_format) output.format = fields.output_format;
  if (fields.output_instructions) output.instructions = fields.output_instructions;
  return {
    target,
    task: taskText(task),
    ...(fields.seed_context ? { seedContext: fields.seed_context } : {}),
    ...(Object.keys(output).length > 0 ? { output } : {}),
    wait: args.wait !== false,
  };
}

/** `{id}` of check_agent, wait_for_agent, kill_agent; with `message` for send_to_agent. */
export function readAgentId(
  tool: string,
  args: Record<string, unknown>,
  withMessage = false,
): { id: string; message?: string } | ToolRefusal {
  if (typeof args.id !== 'string' || args.id === '')
    return bad(
      args.id === undefined ? 'missing-argument' : 'bad-argument',
      `${tool} needs \`id\`, the id spawn_agent returned.`,
    );
  if (!withMessage) return { id: args.id };
  if (typeof args.message !== 'string' || args.message.trim() === '')
    return bad(
      args.message === undefined ? 'missing-argument' : 'bad-argument',
      `${tool} needs \`message\`, the text to send.`,
    );
  return { id: args.id, message: args.message };
}

/** How a worker ended, as the parent keeps it: its answer (a blob reference when large) or why it has none. */
export type WorkerEnd = (
  | { status: 'completed'; output: Content }
  | { status: 'failed'; error: string }
  | { status: 'cancelled'; error: string }
) & {
  /** What the worker's tree spent, from its result (or its failure's partial result). */
  spend?: Spend;
};

export type WorkerStatus = 'queued' | 'running' | WorkerEnd['status'];

/** What the parent's progress shows of a fan-out in flight. */
export interface WorkerCounts {
  queued: number;
  running: number;
  done: number;
  failed: number;
}

/**
 * The order a fan-out runs its workers in: item order, at most `limit` at
 * once (0: all at once). With `failFast`, the first failure stops the rest:
 * the queued ones never start, the running ones are to be cancelled.
 */
export class FanOutQueue {
  private readonly statuses: WorkerStatus[];
  private next = 0;
  private running = 0;
  private stopped = false;

  constructor(
    readonly size: number,
    readonly limit: number,
    readonly failFast = false,
  ) {
    this.statuses = new Array<WorkerStatus>(size).fill('queued');
  }

  /** The items to start now, in order; they count as running from here on. */
  startable(): number[] {
    const out: number[] = [];
    while (this.wantsStart) {
      out.push(this.next);
      this.statuses[this.next++] = 'running';
      this.running++;
    }
    return out;
  }

  /**
   * Records how item `i` ended. Returns the running items to cancel: all of
   * them after the first failure of a fail-fast fan-out, else none.
   */
  finish(i: number, status: WorkerEnd['status']): number[] {
    if (this.statuses[i] !== 'running') return [];
    this.statuses[i] = status;
    this.running--;
    if (!this.failFast || status !== 'failed' || this.stopped) return [];
    this.stopped = true;
    for (let j = this.next; j < this.size; j++) this.statuses[j] = 'cancelled';
    this.next = this.size;
    return this.statuses.flatMap((s, j) => (s === 'running' ? [j] : []));
  }

  status(i: number): WorkerStatus {
    return this.statuses[i] ?? 'queued';
  }

  /** True while an item waits and a slot is free. */
  get wantsStart(): boolean {
    return !this.stopped && this.next < this.size && (this.limit <= 0 || this.running < this.limit);
  }

  /** True once no item is queued or running. */
  get settled(): boolean {
    return this.running === 0 && (this.stopped || this.next >= this.size);
  }

  get inFlight(): number {
    return this.running;
  }

  counts(): WorkerCounts {
    const c: WorkerCounts = { queued: 0, running: 0, done: 0, failed: 0 };
    for (const s of this.statuses) {
      if (s === 'queued') c.queued++;
      else if (s === 'running') c.running++;
      else if (s === 'completed') c.done++;
      else c.failed++;
    }
    return c;
  }
}

/** One item's line of the merged report, before the activity cuts it to its share. */
export interface ReportItem {
  id: string;
  status: WorkerEnd['status'] | 'not-started';
  /** The answer (completed) or the reason (otherwise). */
  text: Content;
}

/** How many items of a report succeeded, failed, and were cancelled or never started. */
export interface ReportCounts {
  succeeded: number;
  failed: number;
  cancelled: number;
}

export function reportCounts(items: readonly Pick<ReportItem, 'status'>[]): ReportCounts {
  const succeeded = items.filter((i) => i.status === 'completed').length;
  const failed = items.filter((i) => i.status === 'failed').length;
  return { succeeded, failed, cancelled: items.length - succeeded - failed };
}

/** The report's first line: how many succeeded and failed. */
export function reportHeader(counts: ReportCounts): string {
  const { succeeded, failed, cancelled } = counts;
  return `[fan_out results: ${succeeded} succeeded, ${failed} failed${cancelled > 0 ? `, ${cancelled} cancelled` : ''}]`;
}

/** Items a fan-out runs from its stage visit; a larger one is split into shards of this many. */
export const DEFAULT_SHARD_ITEMS = 500;

/**
 * How a large fan-out is split (docs/reference/sub-agents.md#large-fan-outs): into shards of
 * at most `shardItems` items, in item order; at most `concurrent` shards run at once, each
 * with at most `limit` workers, so never more than `maxWorkers` run in all (0: no limit).
 * Undefined when the items fit one visit.
 */
export interface ShardPlan {
  ranges: { from: number; to: number }[];
  concurrent: number;
  limit: number;
}

export function shardPlan(items: number, maxWorkers: number, shardItems: number): ShardPlan | undefined {
  const size = Math.max(1, shardItems);
  if (items <= size) return undefined;
  const ranges = Array.from({ length: Math.ceil(items / size) }, (_, k) => ({
    from: k * size,
    to: Math.min(items, (k + 1) * size),
  }));
  if (maxWorkers <= 0) return { ranges, concurrent: ranges.length, limit: 0 };
  const concurrent = Math.min(ranges.length, maxWorkers);
  return { ranges, concurrent, limit: Math.floor(maxWorkers / concurrent) };
}

/** What one shard of a large fan-out is given (`fanOutShardWorkflow`). */
export interface ShardInput {
  /** The visit's run (whose id prefixes every worker's) and blueprint, and the stage that fans out. */
  runId: string;
  blueprintHash: string;
  stage: string;
  items: FanOutItem[];
  limit: number;
  failFast: boolean;
  /** Tokens each item's section of the report may take. */
  share: number;
  label: string;
  child: Omit<ChildRun, 'seedContext' | 'output'>;
  answerOwed: boolean;
  workdir: string;
  options: RunOptions;
  /** The hash of the workers' `WorkerShare`. */
  shared?: string;
}

/** What a shard hands back: its counts and its part of the report (a blob reference when large). */
export interface ShardResult {
  counts: ReportCounts;
  part: Content;
  /** What the shard's workers spent. */
  spend?: Spend;
}

/** A shard's workflow id: `~` is encoded in every item id, so no worker can have it. */
export function shardRunId(runId: string, k: number): string {
  return `${runId}/~shard-${k + 1}`;
}

/** One item's section: `## worker <id>`, with its status when it has no answer. */
export function sectionHeading(item: Pick<ReportItem, 'id' | 'status'>): string {
  const label = { completed: '', failed: ' FAILED', cancelled: ' CANCELLED', 'not-started': ' NOT STARTED' }[
    item.status
  ];
  return `## worker ${item.id}${label}`;
}

/** The report of an empty `fan_out`: nothing was handed out. */
export const EMPTY_FAN_OUT_REPORT = '[fan_out results: no items, so no worker ran]';

/**
 * Each item's share of the region the report lands in: the region's room
 * (or the tool's cap, when smaller) divided equally, so every worker's
 * section appears (docs/reference/sub-agents.md#the-merged-report).
 */
export function itemShare(room: number, items: number): number {
  if (items <= 0) return room;
  return Math.max(16, Math.floor(room / items));
}

/** The result text of a `spawn_agent {wait = false}` call. */
export function startedText(id: string, label: string): string {
  return `Started agent ${id} (${label}). It runs on its own: check_agent {"id": "${id}"} says how it is doing, wait_for_agent {"id": "${id}"} waits for its answer, kill_agent stops it.`;
}

/** What check_agent says about an agent that is still going. */
export function runningText(id: string): string {
  return `agent ${id} is still running; wait_for_agent {"id": "${id}"} waits for its answer.`;
}

/** The tool result of an agent that ended without an answer. */
export function agentFailedText(id: string, end: Exclude<WorkerEnd, { status: 'completed' }>): string {
  return formatCoded(
    'agent-failed',
    `agent ${id} ${end.status === 'cancelled' ? 'was cancelled' : 'failed'}: ${end.error}`,
  );
}

/**
 * Where `spawn_agent {seed_context}` lands in the child: the first pinned
 * region it shows (never `stage_instructions` or `final_output`), else the
 * conversation as a user turn.
 */
export function seedContextTarget(state: RunState): { region: string; kind: EntryKind } {
  const pinned = visibleRegions(state).find(
    (r) => r.kind === 'pinned' && r.name !== 'stage_instructions' && r.name !== 'final_output',
  );
  return pinned ? { region: pinned.name, kind: 'text' } : { region: CONVERSATION, kind: 'user' };
}
