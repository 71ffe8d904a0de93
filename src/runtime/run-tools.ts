/**
 * The run-wide tool list (`[runtime] stable_tools`, docs/reference/rendering.md#the-tool-list):
 * every turn of a run offers the same tools in the same order, the union of what its stages are
 * granted, so a stage change does not change the front of the request that providers cache.
 * Each stage's grants are still enforced as before (`grants.ts`) and stated to the model in a
 * line of its own. Pure: imported by workflow code, which decides from it whether a visit asks
 * the patch.
 */
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { canonicalTool } from '../tools/builtin-names.js';
import { stageTools } from '../tools/grants.js';

/** `[runtime] stable_tools` unset: measured on the cache bench (docs/benchmarks.md#stage-changes). */
export const STABLE_TOOLS_DEFAULT = true;

/** Whether the blueprint's runs offer the run-wide list. */
export function stableToolsOn(bp: Blueprint): boolean {
  return bp.runtime?.stableTools ?? STABLE_TOOLS_DEFAULT;
}

/**
 * The stages that share the list: all but those that run as workers (`allow_as_worker`). A
 * worker's run stays in its one stage, so a list kept across stages gains it nothing, and the
 * run that starts it never visits it.
 */
function sharingStages(bp: Blueprint): Blueprint['stages'] {
  return bp.stages.filter((s) => !s.allowAsWorker);
}

/** Every tool a stage that shares the list is granted, in stage order and each stage's own order, once each. */
export function runTools(bp: Blueprint): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const stage of sharingStages(bp)) {
    for (const name of stageTools(bp, stage.name)) {
      const canonical = canonicalTool(name);
      if (seen.has(canonical)) continue;
      seen.add(canonical);
      names.push(canonical);
    }
  }
  return names;
}

/**
 * Whether a turn of `stage` offers the run-wide list: the switch is on, the stage does not run as
 * a worker, and its own list differs from the run's. A stage granted exactly the run's tools, in
 * that order, changes nothing, so its visits ask no patch.
 */
export function offersRunTools(bp: Blueprint, stage: string): boolean {
  if (!stableToolsOn(bp) || bp.stages.find((s) => s.name === stage)?.allowAsWorker) return false;
  const own = stageTools(bp, stage).map(canonicalTool);
  const all = runTools(bp);
  return own.length !== all.length || own.some((name, i) => name !== all[i]);
}

/**
 * The stage whose version of tool `name` the list carries: the current one when it is granted the
 * tool, else the first stage that is. Tools whose description depends on the stage
 * (`submit_output`'s answer, `fan_out`'s worker) then read right in the stage that may call them.
 */
export function specStage(bp: Blueprint, stage: string, name: string): string {
  const wanted = canonicalTool(name);
  const grants = (s: string) => stageTools(bp, s).some((t) => canonicalTool(t) === wanted);
  if (grants(stage)) return stage;
  return sharingStages(bp).find((s) => grants(s.name))?.name ?? stage;
}

/**
 * What the model reads about the tools it may call when the list offers more than its stage is
 * granted; undefined when nothing offered is withheld. `extra` are the stage's MCP tools.
 */
export function grantNote(bp: Blueprint, stage: string, extra: readonly string[] = []): string | undefined {
  const granted = new Set(stageTools(bp, stage).map(canonicalTool));
  const withheld = runTools(bp).filter((name) => !granted.has(name));
  if (withheld.length === 0) return undefined;
  const own = [...new Set([...granted, ...extra])];
  return `In stage "${stage}" you may call only: ${own.join(', ')}. The other tools listed (${withheld.join(', ')}) belong to other stages of this run: a call to one is refused (\`tool-not-granted\`) and not run.`;
}
