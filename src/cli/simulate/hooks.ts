/**
 * Custom-region hooks for the simulator: each region's script (read by the
 * loader) compiled once with the Rhai interpreter and called per hook.
 */
import type { Blueprint } from '../../blueprint/types.js';
import type { CustomRegionHooks, HookResult } from '../../context/kinds/custom.js';
import { compile, type RhaiScript } from '../../rhai/index.js';

function caller(script: RhaiScript, name: string): ((ctx: unknown) => HookResult) | undefined {
  if (!script.hasFunction(name, 1)) return undefined;
  return (ctx) => {
    const result = script.call(name, [ctx]);
    return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.message };
  };
}

/** Hooks by region name, for every custom region whose script compiles. */
export function scriptHooks(bp: Blueprint): (region: string) => CustomRegionHooks | undefined {
  const hooks = new Map<string, CustomRegionHooks>();
  const defs = [...bp.regions, ...bp.stages.flatMap((s) => s.regions ?? [])];
  for (const def of defs) {
    if (def.kind !== 'custom' || hooks.has(def.name) || def.scriptSource === undefined) continue;
    const compiled = compile(def.scriptSource, def.script ?? def.name);
    if (!compiled.ok) continue;
    const render = caller(compiled.script, 'render');
    if (!render) continue;
    const entry: CustomRegionHooks = { render };
    const onWrite = caller(compiled.script, 'on_write');
    const onOverflow = caller(compiled.script, 'on_overflow');
    if (onWrite) entry.onWrite = onWrite;
    if (onOverflow) entry.onOverflow = onOverflow;
    hooks.set(def.name, entry);
  }
  return (region) => hooks.get(region);
}
