/**
 * The tools a run writes (`[agent] dynamic_tools`,
 * docs/reference/script-tools.md#tools-a-run-writes): which of the scripts
 * found in the workdir's `tools/` a stage is offered, and whether a call of
 * one may run. Pure: the tool worker reads the folder, these decide.
 */
import type { ScriptToolDef, StageDef } from '../shapes/frozen-blueprint.js';
import { failure, type ToolOutcome } from './tool.js';

/**
 * The scripts found that the stage is offered: those whose name its
 * `available_tools` lists and no other tool answers, in the order found.
 */
export function offeredTools(
  def: Pick<StageDef, 'dynamicTools'> | undefined,
  found: readonly ScriptToolDef[],
): ScriptToolDef[] {
  const granted = def?.dynamicTools ?? [];
  return found.filter((t) => granted.includes(t.name));
}

/** The two say the same to the model and run the same script. */
function sameTool(a: ScriptToolDef, b: ScriptToolDef): boolean {
  return (
    a.source === b.source &&
    a.description === b.description &&
    JSON.stringify(a.parameters) === JSON.stringify(b.parameters)
  );
}

/**
 * A call of a tool the run writes: the script to run, or the coded result the
 * model reads. `offered` is the script the turn offered under the name,
 * `current` the one the folder declares now; `problems` what the folder's
 * scripts got wrong, said when the tool is not there.
 */
export function dynamicCall(
  name: string,
  offered: ScriptToolDef | undefined,
  current: ScriptToolDef | undefined,
  problems: readonly string[] = [],
): { run: ScriptToolDef } | { refused: ToolOutcome } {
  const why = problems.length > 0 ? ` ${problems.slice(0, 3).join(' ')}` : '';
  if (!offered)
    return {
      refused: failure(
        'dynamic-tool-missing',
        `\`${name}\` was not offered on this turn: no script of the workdir's tools/ declared it when the turn began.${why} Write a tools/<file>.rhai whose \`// @tool\` line names it, and call it on a later turn.`,
      ),
    };
  if (!current)
    return {
      refused: failure(
        'dynamic-tool-changed',
        `\`${name}\` was offered on this turn, but no script of the workdir's tools/ declares it any more, so the call was not run.${why} Write ${offered.path} again, or use another tool.`,
      ),
    };
  if (!sameTool(offered, current))
    return {
      refused: failure(
        'dynamic-tool-changed',
        `\`${name}\` changed in the workdir's tools/ after this turn offered it, so the call was not run; call it on the next turn, which offers the new version.`,
      ),
    };
  return { run: current };
}
