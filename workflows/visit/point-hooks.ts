/**
 * The stage hooks that see the stage's regions (docs/reference/stage-hooks.md):
 * `on_stage_enter` before the visit's first inference, `before_inference`
 * before each, `on_stage_exit` as the stage finishes. A `modify` rewrites
 * regions as `context_write` does; the decisions are
 * `src/runtime/stage-hooks.ts`'s. Run by visits that ask `STAGE_HOOKS`.
 */
import { contentText } from '../../src/context/index.js';
import { type RegionHookEvent, regionHook } from '../../src/runtime/stage-hooks.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import type { StageVisit } from './stage-visit.js';

/** Runs the stage's hook for `event`; the reason the visit ends in error, or undefined to go on. */
export async function runRegionHook(
  visit: StageVisit,
  def: StageDef,
  stageIndex: number,
  event: RegionHookEvent,
): Promise<string | undefined> {
  if (!def.hooks?.[event]) return undefined;
  const regions: Record<string, string> = {};
  for (const r of visit.driver.state.regions) {
    if (r.hidden) continue;
    // An entry stored as a blob is shown by its first characters.
    regions[r.name] = r.entries.map((e) => contentText(e.content)).join('\n');
  }
  const hooked = regionHook(def, stageIndex, event, regions);
  if (hooked === undefined) return undefined;
  if ('failed' in hooked) return hooked.failed;
  for (const [region, content] of hooked.writes) {
    const result = await visit.driver.apply({
      kind: 'contextTool',
      tool: 'context_write',
      args: { region, content },
      counts: { content: await visit.driver.count(content) },
    });
    if (result.isError) return `${event}: writing region '${region}': ${contentText(result.content)}`;
  }
  return undefined;
}
