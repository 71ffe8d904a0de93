/**
 * The checkpoints of a `mode = "interactive_points"` stage
 * (docs/reference/interaction.md#interaction-points): `[[stages.X.interaction_points]]`,
 * or the original's table form `mode = { interactive_points = [...] }`.
 * Each point is read with the original's keys and defaults; a point that
 * cannot be answered is `bad-interaction-point`, an option list naming no
 * option is `interaction-point-option-unknown`. Whether `document_region`
 * names a pinned region the stage sees is checked with the layouts
 * (`checkPointRegions`).
 */
import type { Blueprint, InteractionPoint, InteractionStyle } from '../shapes/frozen-blueprint.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';
import { CONFIRM_OPTIONS, matchLabel } from './option-labels.js';
import { stageLayout } from './stage-layouts.js';

export const POINT_KEYS = [
  'name',
  'prompt',
  'required',
  'unattended',
  'style',
  'options',
  'choices',
  'directives',
  'followups',
  'abort_options',
  'edit_options',
  'document_region',
] as const;

const STYLES: readonly InteractionStyle[] = ['free_text', 'multiple_choice', 'confirm'];
const UNATTENDED = ['ask', 'auto_approve'] as const;

/**
 * The points written for stage `stage`: `listed` is the stage's
 * `interaction_points`, `inMode` the mode table's `interactive_points`;
 * both are read, the mode table's first.
 */
export function parsePoints(
  sources: readonly { raw: unknown; at: KeyPath }[],
  stage: string,
  findings: Findings,
): InteractionPoint[] {
  const points: InteractionPoint[] = [];
  for (const { raw, at } of sources) {
    if (!Array.isArray(raw)) {
      findings.add(
        'bad-value',
        `The interaction points of stage "${stage}" must be an array of tables ([[stages.${stage}.interaction_points]]), not ${describeValue(raw)}.`,
        at,
      );
      continue;
    }
    raw.forEach((value, i) => {
      const point = parsePoint(value, [...at, i], stage, points.length + 1, findings);
      if (point) points.push(point);
    });
  }
  return points;
}

function parsePoint(
  value: unknown,
  at: KeyPath,
  stage: string,
  position: number,
  findings: Findings,
): InteractionPoint | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `Interaction point ${position} of stage "${stage}" must be a table with name, prompt, style, options, ..., not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys(POINT_KEYS, 'unknown-key', `Interaction point ${position} of stage "${stage}"`);
  const name = t.string('name')?.trim() || `point${position}`;
  const style = t.enumeration('style', STYLES, 'bad-value') ?? 'free_text';
  const options = t.stringArray(t.has('options') ? 'options' : 'choices') ?? [];
  const point: InteractionPoint = {
    name,
    prompt: t.string('prompt') ?? '',
    required: t.boolean('required') ?? true,
    unattended: t.enumeration('unattended', UNATTENDED, 'bad-value') ?? 'auto_approve',
    style,
    options,
    directives: readDirectives(t, t.has('directives') ? 'directives' : 'followups'),
    abortOptions: t.stringArray('abort_options') ?? [],
    editOptions: t.stringArray('edit_options') ?? [],
  };
  const region = t.string('document_region')?.trim();
  if (region) point.documentRegion = region;
  if (style === 'multiple_choice' && options.length < 2)
    findings.add(
      'bad-interaction-point',
      `Interaction point "${name}" of stage "${stage}" is multiple_choice with ${options.length === 0 ? 'no options' : 'one option'}, so nobody can answer it; give options = ["…", "…"] with at least two labels.`,
      t.at(t.has('options') || !t.has('choices') ? 'options' : 'choices'),
    );
  reportUnknownOptions(point, stage, t);
  return point;
}

function readDirectives(t: TableReader, key: string): Record<string, string> {
  const table = t.table_(key, '{ "Revise" = "Ask what to change, then plan again." }');
  const directives: Record<string, string> = {};
  for (const label of Object.keys(table?.table ?? {})) {
    const text = table?.string(label);
    if (text !== undefined) directives[label] = text;
  }
  return directives;
}

/**
 * An option list entry that names no option of the point is never picked, so
 * what it was written for never happens; the answers a point takes are its
 * options, or Yes and No for `confirm`. A free-text point's lists match typed
 * text, so anything goes there.
 */
function reportUnknownOptions(point: InteractionPoint, stage: string, t: TableReader): void {
  if (point.style === 'free_text') return;
  const answers: readonly string[] = point.style === 'confirm' ? CONFIRM_OPTIONS : point.options;
  if (point.style === 'multiple_choice' && answers.length < 2) return;
  const lists: [string, readonly string[]][] = [
    ['abort_options', point.abortOptions],
    ['edit_options', point.editOptions],
    [t.has('directives') ? 'directives' : 'followups', Object.keys(point.directives)],
  ];
  for (const [key, labels] of lists)
    for (const label of labels)
      if (matchLabel(answers, label) === undefined)
        t.findings.add(
          'interaction-point-option-unknown',
          `Interaction point "${point.name}" of stage "${stage}" lists "${label}" in ${key}, which is not one of its answers (${answers.map((a) => `"${a}"`).join(', ')}), so picking it never does what ${key} says; write the label as it is in ${point.style === 'confirm' ? 'Yes/No' : 'options'}.`,
          t.at(key),
        );
}

/**
 * `document_region` names a pinned region the stage sees: the document is
 * written there each time the point asks.
 */
export function checkPointRegions(bp: Blueprint, findings: Findings): void {
  for (const stage of bp.stages) {
    const layout = stageLayout(bp, stage);
    (stage.interactionPoints ?? []).forEach((point, i) => {
      const name = point.documentRegion;
      if (name === undefined) return;
      const region = layout.find((r) => r.name === name);
      if (region?.kind === 'pinned') return;
      findings.add(
        'bad-interaction-point',
        region
          ? `Interaction point "${point.name}" of stage "${stage.name}" keeps its document in "${name}", a ${region.kind} region; document_region must name a pinned region, such as plan = { kind = "pinned", budget = "5%" }.`
          : `Interaction point "${point.name}" of stage "${stage.name}" keeps its document in "${name}", which stage "${stage.name}" does not see; declare it in [context.regions] as a pinned region, or fix the name.`,
        ['stages', stage.name, 'interaction_points', i, 'document_region'],
      );
    });
  }
}
