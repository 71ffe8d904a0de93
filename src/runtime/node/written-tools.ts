/**
 * The tool worker's side of `[agent] dynamic_tools`
 * (docs/reference/script-tools.md#tools-a-run-writes): before each turn of a
 * stage that may be offered scripts the run writes, the workdir's `tools/` is
 * read and what the stage is offered is stored as one blob, whose hash the
 * workflow records and hands to the turn's inference and tool calls. The
 * workflow never reads the folder; a replay sees the hash it recorded.
 */
import { readRunTools } from '../../blueprint/tool-scripts.js';
import type { Blueprint, ScriptToolDef } from '../../shapes/frozen-blueprint.js';
import { RUNTIME_TOOLS } from '../../shapes/tool-catalogue.js';
import { dynamicCall, offeredTools } from '../../tools/dynamic-tools.js';
import type { ToolOutcome } from '../../tools/tool.js';
import type { FoundTools, ScanInput, ToolInput } from '../activity-types.js';
import type { RunStore } from './run-store.js';

function stageDef(bp: Blueprint, stage: string) {
  return bp.stages.find((s) => s.name === stage);
}

/** The scan activity's work: the stage's offered scripts, stored; nothing when it is offered none. */
export async function scanWrittenTools(store: RunStore, input: ScanInput): Promise<FoundTools> {
  const bp = await store.blueprint(input.blueprintHash);
  const offered = offeredTools(stageDef(bp, input.stage), readRunTools(input.workdir, RUNTIME_TOOLS).tools);
  if (offered.length === 0) return {};
  return { offered: (await store.blobs.put(JSON.stringify(offered))).hash };
}

/** The scripts a turn offered, read back from their blob. */
export async function loadWritten(store: RunStore, hash: string | undefined): Promise<ScriptToolDef[]> {
  return hash ? (JSON.parse(await store.blobs.get(hash)) as ScriptToolDef[]) : [];
}

/** Whether the call is of a name the stage lists for a script the run writes. */
export function callsWritten(bp: Blueprint, input: Pick<ToolInput, 'stage' | 'call'>): boolean {
  return stageDef(bp, input.stage)?.dynamicTools?.includes(input.call.name) === true;
}

/**
 * A call of a script the run writes: the script as the turn offered it and as
 * the folder holds it now, so one changed or removed in between does not run.
 */
export async function writtenCall(
  store: RunStore,
  input: ToolInput,
): Promise<{ run: ScriptToolDef } | { refused: ToolOutcome }> {
  const name = input.call.name;
  const offered = (await loadWritten(store, input.written)).find((t) => t.name === name);
  const now = readRunTools(input.workdir, RUNTIME_TOOLS);
  return dynamicCall(
    name,
    offered,
    now.tools.find((t) => t.name === name),
    now.problems,
  );
}
