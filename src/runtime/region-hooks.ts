/**
 * Custom-region hooks (docs/reference/regions.md#custom-region-hooks) backed by the Rhai interpreter. Pure: the
 * workflow, the activities and `lev context simulate` build identical hooks
 * from the script sources the loader read, so all three decide the same.
 */

import type { CustomRegionHooks, HookResult } from '../context/kinds/custom.js';
import { compile, type RhaiScript } from '../rhai/index.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';

function caller(
  script: RhaiScript,
  name: string,
  log: (line: string) => void,
): ((ctx: unknown) => HookResult) | undefined {
  if (!script.hasFunction(name, 1)) return undefined;
  return (ctx) => {
    const result = script.call(name, [ctx]);
    for (const line of result.logs) log(`${script.path}: ${line}`);
    return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error.message };
  };
}

/**
 * Hooks by region name for every custom region whose script compiles and
 * has `render`; undefined when the blueprint has none. Scripts that fail
 * to compile were already refused by validation.
 */
export function customRegionHooks(
  bp: Blueprint,
  log: (line: string) => void = () => {},
): ((region: string) => CustomRegionHooks | undefined) | undefined {
  const hooks = new Map<string, CustomRegionHooks>();
  const defs = [...bp.regions, ...bp.stages.flatMap((s) => s.regions ?? [])];
  for (const def of defs) {
    if (def.kind !== 'custom' || hooks.has(def.name) || def.scriptSource === undefined) continue;
    const compiled = compile(def.scriptSource, def.script ?? def.name);
    if (!compiled.ok) continue;
    const render = caller(compiled.script, 'render', log);
    if (!render) continue;
    const entry: CustomRegionHooks = { render };
    const onWrite = caller(compiled.script, 'on_write', log);
    const onOverflow = caller(compiled.script, 'on_overflow', log);
    if (onWrite) entry.onWrite = onWrite;
    if (onOverflow) entry.onOverflow = onOverflow;
    hooks.set(def.name, entry);
  }
  return hooks.size === 0 ? undefined : (region) => hooks.get(region);
}
