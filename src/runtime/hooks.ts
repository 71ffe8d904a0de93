/**
 * Custom-region hooks backed by the Rhai interpreter. Pure, so the workflow
 * and the activities build identical hooks from the blueprint's script
 * sources (read at load, never from disk here).
 */
import type { Blueprint } from '../blueprint/types.js';
import type { CustomRegionHooks, HookResult } from '../context/index.js';
import { type RhaiScript, compile } from '../rhai/index.js';

function call(script: RhaiScript, name: string, ctx: unknown, log: (line: string) => void): HookResult {
  const result = script.call(name, [ctx]);
  for (const line of result.logs) log(`${script.path}: ${line}`);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.message };
}

/** Hooks per custom region; a script that fails to compile here was already refused at validation. */
export function customHooks(bp: Blueprint, log: (line: string) => void = () => {}): ((region: string) => CustomRegionHooks | undefined) | undefined {
  const table = new Map<string, CustomRegionHooks>();
  const defs = [...bp.regions, ...bp.stages.flatMap((s) => s.regions ?? [])];
  for (const def of defs) {
    if (def.kind !== 'custom' || !def.scriptSource || table.has(def.name)) continue;
    const compiled = compile(def.scriptSource, def.script ?? def.name);
    if (!compiled.ok) continue;
    const script = compiled.script;
    const hooks: CustomRegionHooks = { render: (ctx) => call(script, 'render', ctx, log) };
    if (script.hasFunction('on_write')) hooks.onWrite = (ctx) => call(script, 'on_write', ctx, log);
    if (script.hasFunction('on_overflow')) hooks.onOverflow = (ctx) => call(script, 'on_overflow', ctx, log);
    table.set(def.name, hooks);
  }
  return table.size === 0 ? undefined : (region) => table.get(region);
}
