/**
 * Stage hooks (docs/reference/stage-hooks.md), the original Leviath's Rhai
 * scripts at points of a stage's life, with its return contract: `()` or
 * `true` allows, `false` refuses, `#{ action: "modify", value }` proceeds
 * with `value`, `#{ action: "cancel", reason }` refuses, and `retry`, which
 * no hook can honour, refuses too. A refusal, a script that fails and an
 * answer of another shape all end the run in error (`stage-hook-failed`):
 * a broken gate is never taken for an open one. Pure, on the sandboxed
 * interpreter: workflow code runs it, as it runs custom regions.
 */
import { compileOnce } from '../rhai/index.js';
import type { ToolCall } from '../shapes/content.js';
import type { StageDef } from '../shapes/frozen-blueprint.js';
import { STAGE_HOOK_EVENTS, type StageHookEvent } from '../shapes/hook-events.js';

export { STAGE_HOOK_EVENTS, type StageHookEvent };

/** The points that see the stage's regions and may rewrite them, run in the stage visit. */
export const REGION_HOOK_EVENTS = ['on_stage_enter', 'before_inference', 'on_stage_exit'] as const;
export type RegionHookEvent = (typeof REGION_HOOK_EVENTS)[number];

/** Whether a visit of the stage runs hooks (`STAGE_HOOKS`): any point but the run's terminal ones. */
export function hasVisitHooks(def: StageDef | undefined): boolean {
  return STAGE_HOOK_EVENTS.some(
    (e) => !(TERMINAL_HOOK_EVENTS as readonly string[]).includes(e) && def?.hooks?.[e] !== undefined,
  );
}

/**
 * Whether a visit enters its stage now, running `on_stage_enter`: it has made no inference, and
 * it is not a visit that ran the hook and then went on as new before its first inference.
 */
export function entersStage(visitTurns: number, facts: { stageEntered?: boolean }): boolean {
  return visitTurns === 0 && facts.stageEntered !== true;
}

/** The points a run runs as it ends, with the stage it ends in. */
export const TERMINAL_HOOK_EVENTS = ['on_completion', 'on_error'] as const;

/** Whether a stage of `stages` has a hook the run runs as it ends (`TERMINAL_HOOKS`). */
export function hasTerminalHooks(stages: readonly StageDef[]): boolean {
  return stages.some((s) => TERMINAL_HOOK_EVENTS.some((e) => s.hooks?.[e] !== undefined));
}

export type HookOutcome = { kind: 'allow' } | { kind: 'modify'; value: unknown } | { kind: 'fail'; message: string };

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a hook's return value means. */
export function hookOutcome(event: StageHookEvent, value: unknown): HookOutcome {
  if (value === undefined || value === true) return { kind: 'allow' };
  if (value === false) return { kind: 'fail', message: `${event} refused: no reason given` };
  if (!isMap(value) || typeof value.action !== 'string')
    return {
      kind: 'fail',
      message: `${event} returned ${JSON.stringify(value) ?? String(value)}, not (), a bool or a map with an \`action\` (allow, modify, cancel)`,
    };
  switch (value.action) {
    case 'allow':
      return { kind: 'allow' };
    case 'modify':
      if (!('value' in value) || value.value === undefined)
        return { kind: 'fail', message: `${event} asked to modify but gave no \`value\`` };
      return { kind: 'modify', value: value.value };
    case 'cancel':
      return {
        kind: 'fail',
        message: `${event} refused: ${typeof value.reason === 'string' && value.reason !== '' ? value.reason : 'no reason given'}`,
      };
    case 'retry':
      return { kind: 'fail', message: `${event} returned \`retry\`, which no hook can honour yet` };
    default:
      return {
        kind: 'fail',
        message: `${event} returned the action "${value.action}", not allow, modify, cancel or retry`,
      };
  }
}

/** Runs the stage's hook for `event` on `ctx`; undefined when the stage has none. */
export function runStageHook(def: StageDef, event: StageHookEvent, ctx: unknown): HookOutcome | undefined {
  const path = def.hooks?.[event];
  const source = path === undefined ? undefined : def.hookSources?.[path];
  if (path === undefined || source === undefined) return undefined;
  const compiled = compileOnce(source, path);
  if (!compiled.ok) return { kind: 'fail', message: `${event} hook does not compile: ${compiled.error.message}` };
  const run = compiled.script.call(event, [ctx]);
  if (!run.ok) return { kind: 'fail', message: `${event} hook failed: ${run.error.message}` };
  return hookOutcome(event, run.value);
}

/** `after_inference`: the reply's text as the hook leaves it, or why the run ends. */
export function afterInferenceHook(
  def: StageDef,
  stageIndex: number,
  reply: { text: string; tokens: number; toolNames: string[] },
): { text: string } | { failed: string } | undefined {
  const outcome = runStageHook(def, 'after_inference', {
    stage: def.name,
    stage_index: stageIndex,
    response: reply.text,
    tokens_used: reply.tokens,
    tool_calls: reply.toolNames,
  });
  if (outcome === undefined || outcome.kind === 'allow') return undefined;
  if (outcome.kind === 'fail') return { failed: outcome.message };
  if (typeof outcome.value !== 'string')
    return { failed: 'after_inference: `value` must be the replacement response text' };
  return { text: outcome.value };
}

/** `on_tool_call`: the calls as the hook leaves them (new ones get ids of their own), or why the run ends. */
export function toolCallHook(
  def: StageDef,
  stageIndex: number,
  calls: readonly ToolCall[],
): { calls: ToolCall[] } | { failed: string } | undefined {
  if (calls.length === 0) return undefined;
  const outcome = runStageHook(def, 'on_tool_call', {
    stage: def.name,
    stage_index: stageIndex,
    tool_calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })),
  });
  if (outcome === undefined || outcome.kind === 'allow') return undefined;
  if (outcome.kind === 'fail') return { failed: outcome.message };
  if (!Array.isArray(outcome.value))
    return { failed: 'on_tool_call: `value` must be an array of #{ name, arguments }' };
  const out: ToolCall[] = [];
  for (const [i, item] of outcome.value.entries()) {
    if (!isMap(item) || typeof item.name !== 'string' || item.name === '')
      return { failed: `on_tool_call: replacement call ${i} has no \`name\`` };
    const args = item.arguments === undefined ? {} : item.arguments;
    if (!isMap(args)) return { failed: `on_tool_call: the \`arguments\` of replacement call ${i} must be a map` };
    // A call of the same name in the same place keeps its id, and the stored arguments it still carries.
    const same = calls[i]?.name === item.name ? calls[i] : undefined;
    const call: ToolCall = { id: same?.id ?? `hook-${i}-${item.name}`, name: item.name, arguments: args };
    const stored = same?.blobArgs?.filter((k) => isMap(args[k]) && 'hash' in args[k]);
    if (stored && stored.length > 0) call.blobArgs = stored;
    out.push(call);
  }
  return { calls: out };
}

/**
 * `on_completion` (the run's output) or `on_error` (its error message), of
 * the stage the run ends in: the text as the hook leaves it, or why the run
 * ends in error instead.
 */
export function terminalHook(
  def: StageDef,
  stageIndex: number,
  event: (typeof TERMINAL_HOOK_EVENTS)[number],
  subject: string,
): { text: string } | { failed: string } | undefined {
  const completed = event === 'on_completion';
  const outcome = runStageHook(def, event, {
    stage: def.name,
    stage_index: stageIndex,
    status: completed ? 'completed' : 'failed',
    output: completed ? subject : '',
    error: completed ? '' : subject,
  });
  if (outcome === undefined || outcome.kind === 'allow') return undefined;
  if (outcome.kind === 'fail') return { failed: outcome.message };
  if (typeof outcome.value !== 'string') return { failed: `${event}: \`value\` must be the replacement text` };
  return { text: outcome.value };
}

/**
 * `on_stage_enter`, `before_inference`, `on_stage_exit`: `ctx.regions` holds
 * each visible region's text (its entries joined by newlines); `modify`'s
 * value maps region names to the text each is to hold instead.
 */
export function regionHook(
  def: StageDef,
  stageIndex: number,
  event: RegionHookEvent,
  regions: Record<string, string>,
): { writes: [string, string][] } | { failed: string } | undefined {
  const outcome = runStageHook(def, event, { stage: def.name, stage_index: stageIndex, regions });
  if (outcome === undefined || outcome.kind === 'allow') return undefined;
  if (outcome.kind === 'fail') return { failed: outcome.message };
  if (!isMap(outcome.value)) return { failed: `${event}: \`value\` must be a map of region name to content` };
  const writes: [string, string][] = [];
  for (const [name, text] of Object.entries(outcome.value)) {
    if (typeof text !== 'string') return { failed: `${event}: region '${name}' must be given a string` };
    if (!(name in regions)) return { failed: `${event}: no region '${name}' in this stage's layout` };
    writes.push([name, text]);
  }
  return { writes };
}
