/**
 * `[stages.<name>.hooks]` (docs/reference/stage-hooks.md): each of the
 * original's seven points names a `.rhai` file inside the blueprint
 * directory that defines a function of the point's name taking one
 * argument. Each is read and compiled here, at load, so a hook that could
 * never run stops `lev validate` and `lev run` before the agent starts (a
 * hook that never ran looks like one that allowed everything). The stage
 * carries the paths and their sources.
 */
import { compile } from '../rhai/index.js';
import type { Blueprint, StageDef } from '../shapes/frozen-blueprint.js';
import { STAGE_HOOK_EVENTS, type StageHookEvent } from '../shapes/hook-events.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings } from './findings.js';
import { readBlueprintScript, scriptFileProblem } from './scripts.js';

function readStage(bp: Blueprint, def: StageDef, value: unknown, findings: Findings): void {
  const at = ['stages', def.name, 'hooks'];
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `Stage "${def.name}": \`hooks\` must be a table such as { on_tool_call = "hooks/guard.rhai" }, not ${describeValue(value)}.`,
      at,
    );
    return;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys(STAGE_HOOK_EVENTS, 'unknown-key', `Stage "${def.name}"'s hooks`);
  for (const event of STAGE_HOOK_EVENTS) {
    const path = t.string(event);
    if (path === undefined) continue;
    const source = checkOne(bp, def, event, path, findings, t.at(event));
    if (source === undefined) continue;
    def.hooks = { ...def.hooks, [event]: path };
    def.hookSources = { ...def.hookSources, [path]: source };
  }
}

/** The script's source when it can run as `event`'s hook; otherwise reported. */
function checkOne(
  bp: Blueprint,
  def: StageDef,
  event: StageHookEvent,
  path: string,
  findings: Findings,
  at: readonly (string | number)[],
): string | undefined {
  const name = `Stage "${def.name}"'s ${event} hook`;
  const read = readBlueprintScript(bp.dir, path);
  if (!read.ok) {
    findings.add(
      'stage-hook-invalid',
      `${name} ${scriptFileProblem(path, read.problem)}; point it at a .rhai file defining fn ${event}(ctx).`,
      at,
    );
    return undefined;
  }
  const compiled = compile(read.source, path);
  if (!compiled.ok) {
    findings.add('stage-hook-invalid', `${name} does not compile: ${compiled.error.message}; fix the script.`, at);
    return undefined;
  }
  if (!compiled.script.hasFunction(event, 1)) {
    findings.add(
      'stage-hook-invalid',
      `${name} "${path}" defines no fn ${event}(ctx) taking one argument; add it (one file may define several hooks).`,
      at,
    );
    return undefined;
  }
  return read.source;
}

export function readStageHooks(
  bp: Blueprint,
  stagesTable: Record<string, unknown> | undefined,
  findings: Findings,
): void {
  for (const def of bp.stages) {
    const raw = stagesTable?.[def.name];
    if (isTable(raw) && raw.hooks !== undefined) readStage(bp, def, raw.hooks, findings);
  }
}
