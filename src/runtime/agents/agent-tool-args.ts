/**
 * What the agent tools ask for (docs/reference/sub-agents.md): reading the
 * arguments of `fan_out`, `spawn_agent` and the agent-id tools, and which
 * blueprint or stage a call may start, each refused with a coded text the
 * model reads. Pure: imported by workflow code.
 */

import { formatCoded, type RuntimeCode } from '../../errors.js';
import type { Blueprint, OutputSpec, StageDef } from '../../shapes/frozen-blueprint.js';
import type { Lineage } from '../types.js';
import { type ChildBlueprint, depthOf, idSegment, MAX_ID_SEGMENT } from './lineage.js';

/** Most items one `fan_out` call takes. */
export const MAX_FAN_OUT_ITEMS = 10_000;
/** Longest item id, in characters. */
export const MAX_ITEM_ID_CHARS = 200;
/** A refusal the model reads as the tool's result; the run goes on. */
export interface ToolRefusal {
  ok: false;
  code: RuntimeCode;
  message: string;
}

export function toolRefusalText(r: ToolRefusal): string {
  return formatCoded(r.code, r.message);
}

/** What a call may start: a stage of the running blueprint, or an agent the blueprint names. */
export interface WorkerTarget {
  blueprint: ChildBlueprint;
  stage?: string;
  /** The name the call or the blueprint used, for the report and the Web UI. */
  label: string;
}

/** The running blueprint as the agent tools see it. */
export interface SpawnContext {
  bp: Blueprint;
  blueprintHash: string;
  lineage: Lineage;
}

/**
 * The target of `{agent}` or `{stage}`: an agent must be one the blueprint
 * names (`worker_agent`, `[agent] sub_agents`), a stage must allow it.
 */
export function resolveTarget(sp: SpawnContext, ask: { agent?: string; stage?: string }): WorkerTarget | ToolRefusal {
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
export function stageWorker(sp: SpawnContext, fanOut: NonNullable<StageDef['fanOut']>): WorkerTarget | ToolRefusal {
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
export function readFanOut(sp: SpawnContext, def: StageDef, args: Record<string, unknown>): FanOutCall | ToolRefusal {
  const target = def.fanOut ? stageWorker(sp, def.fanOut) : targetOf(sp, args, 'fan_out', 'agent');
  if ('ok' in target) return target;
  const items = readItems(args, def.fanOut?.maxItems);
  if ('ok' in items) return items;
  return { target, items };
}

function targetOf(
  sp: SpawnContext,
  args: Record<string, unknown>,
  tool: string,
  noun: string,
): WorkerTarget | ToolRefusal {
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

export function readSpawn(sp: SpawnContext, args: Record<string, unknown>): SpawnCall | ToolRefusal {
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
