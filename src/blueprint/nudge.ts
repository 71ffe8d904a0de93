/**
 * The original's empty-response nudge (docs/reference/stages.md#the-empty-response-nudge):
 * `[agent.nudge]` and `[stages.<name>.nudge]`, each of `enabled`, `max` and
 * `text` cascading on its own, stage over agent over the built-in defaults.
 * Resolved here, at load, into the stage's `nudge`, the only thing the
 * runtime reads (`src/runtime/stage-modes.ts`).
 */
import type { Blueprint, StageDef } from '../shapes/frozen-blueprint.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';

const NUDGE_KEYS = ['enabled', 'max', 'text'] as const;

/** The original's text and count (`DEFAULT_NUDGE_TEXT`, `DEFAULT_MAX_NUDGES`). */
export const DEFAULT_NUDGE_TEXT =
  'You have tools available. Please use them to complete the task. Start by reading the relevant files in the working directory.';
export const DEFAULT_MAX_NUDGES = 3;

/** One level's table, every key optional. */
export interface NudgeTable {
  enabled?: boolean;
  max?: number;
  text?: string;
}

export function parseNudge(value: unknown, at: KeyPath, findings: Findings): NudgeTable | undefined {
  if (!isTable(value)) {
    findings.add('bad-value', `\`nudge\` must be a table such as { max = 2 }, not ${describeValue(value)}.`, at);
    return undefined;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys(NUDGE_KEYS, 'unknown-key', 'A nudge table');
  const table: NudgeTable = {};
  const enabled = t.boolean('enabled');
  if (enabled !== undefined) table.enabled = enabled;
  const max = t.integer('max', 0);
  if (max !== undefined) table.max = max;
  const text = t.string('text');
  if (text !== undefined) table.text = text;
  return table;
}

/**
 * The stage's nudge, or undefined when it is not nudged. Nothing written at
 * either level leaves a stage un-nudged, as before this key was read; a
 * table at either level turns the original's defaults on (on, except for a
 * stage with interaction points, whose text is its work; `max` 3; its text).
 * `{stage}` and `{regions}` (the stage's required regions) are filled in.
 */
export function resolveNudge(
  def: StageDef,
  regions: Blueprint['regions'],
  agent: NudgeTable | undefined,
  stage: NudgeTable | undefined,
): StageDef['nudge'] {
  if (agent === undefined && stage === undefined) return undefined;
  const reviewed = (def.interactionPoints?.length ?? 0) > 0;
  const enabled = stage?.enabled ?? agent?.enabled ?? !reviewed;
  const max = stage?.max ?? agent?.max ?? DEFAULT_MAX_NUDGES;
  if (!enabled || max === 0) return undefined;
  const required = (def.regions ?? regions).filter((r) => r.required).map((r) => r.name);
  const text = (stage?.text ?? agent?.text ?? DEFAULT_NUDGE_TEXT)
    .replaceAll('{stage}', def.name)
    .replaceAll('{regions}', required.join(', '));
  return { max, text };
}

/** Reads `[agent.nudge]` and every stage's `nudge` into the stages of `bp`. */
export function readNudges(
  bp: Blueprint,
  agentTable: TableReader | undefined,
  stagesTable: Record<string, unknown> | undefined,
  findings: Findings,
): void {
  const agent = agentTable?.has('nudge')
    ? parseNudge(agentTable.raw('nudge'), agentTable.at('nudge'), findings)
    : undefined;
  for (const def of bp.stages) {
    const raw = stagesTable?.[def.name];
    const written = isTable(raw) && raw.nudge !== undefined;
    const stage = written ? parseNudge(raw.nudge, ['stages', def.name, 'nudge'], findings) : undefined;
    const nudge = resolveNudge(def, bp.regions, agent, stage);
    if (nudge) def.nudge = nudge;
  }
}
