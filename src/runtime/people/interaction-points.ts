/**
 * The checkpoints of an `interactive_points` stage
 * (docs/reference/interaction.md#interaction-points): when the stage's model
 * answers without tool calls, each point asks a person in turn before the
 * stage may end, and the list an answer is in decides what happens: pass
 * (the next point, or the end of the stage), revise (the point's directive
 * is added and the stage runs again), edit (the person edits the document,
 * which is adopted and asked about again) or abort (the run ends
 * cancelled). Revising and editing are bounded by `MAX_REVISION_ROUNDS`. The
 * rules and the texts the model reads; the questions themselves are
 * `PendingAsk`s answered by the `answer` update. Pure: imported by workflow
 * code.
 */
import { matchLabel } from '../../blueprint/option-labels.js';
import type { Content } from '../../shapes/content.js';
import type { InteractionPoint, StageDef } from '../../shapes/frozen-blueprint.js';
import { isPersonTool } from '../../tools/builtin-names.js';
import type { AnswerForm, PendingAsk, VisitFacts } from '../types.js';
import type { AskTimes } from './asks.js';

/** Times one point may send the stage back (revise or edit) before it passes regardless. */
export const MAX_REVISION_ROUNDS = 4;

/** The tool name a checkpoint's question shows, where a tool call's would be. */
export const POINT_TOOL = 'interaction_point';

/**
 * Whether a visit of `def` may ask in the forms this version added
 * (`INTERACTION_POINTS` in `src/runtime/patches.ts`): a stage with
 * checkpoints, or one offered a tool that waits for a person other than
 * `ask_user`.
 */
export function asksInForms(def: StageDef): boolean {
  return (
    def.mode === 'interactive_points' || (def.availableTools ?? []).some((t) => isPersonTool(t) && t !== 'ask_user')
  );
}

/** Where a stage's checkpoints stand: the point it is at and the rounds it was sent back there. */
export type CheckpointAt = NonNullable<VisitFacts['checkpoint']>;

/** The point the stage asks next, or undefined once every point has passed (or it has none). */
export function currentPoint(
  def: StageDef,
  at: CheckpointAt | undefined,
): { point: InteractionPoint; index: number; round: number } | undefined {
  const index = at?.point ?? 0;
  const point = def.interactionPoints?.[index];
  return point ? { point, index, round: at?.round ?? 0 } : undefined;
}

/** An `auto_approve` point passes on its own in a run nobody attends; every other point asks. */
export function pointAsksPerson(point: InteractionPoint, unattended: boolean): boolean {
  return !unattended || point.unattended === 'ask';
}

const FORMS: Record<InteractionPoint['style'], AnswerForm> = {
  free_text: 'text',
  multiple_choice: 'choice',
  confirm: 'confirm',
};

/** The question a point puts, on the document it is about (the stage's last reply, or the person's edit). */
export function pointAsk(point: InteractionPoint, round: number, at: AskTimes, document: Content): PendingAsk {
  return {
    kind: 'answer',
    call: `point-${point.name}-${round}`,
    tool: POINT_TOOL,
    subject: point.prompt.trim() || `Checkpoint ${point.name}`,
    ...at,
    form: FORMS[point.style],
    ...(point.style === 'multiple_choice' ? { options: [...point.options] } : {}),
    ...(hasText(document) ? { document } : {}),
    point: point.name,
    ...(point.style === 'free_text' && !point.required ? { optional: true } : {}),
  };
}

/** The second question of an edit option: the document to edit, whose answer replaces it. */
export function pointEditAsk(point: InteractionPoint, round: number, at: AskTimes, document: Content): PendingAsk {
  return {
    kind: 'answer',
    call: `point-${point.name}-${round}-edit`,
    tool: POINT_TOOL,
    subject: 'Edit the document; your version replaces it.',
    ...at,
    form: 'edit',
    ...(hasText(document) ? { document } : {}),
    point: point.name,
  };
}

function hasText(content: Content): boolean {
  return typeof content !== 'string' || content.trim() !== '';
}

/**
 * What an answer to a point does. `say` are the person's lines the
 * conversation gets (`User [point] answer`), `note` a runtime note after
 * them.
 */
export type PointStep =
  | { kind: 'pass'; say: string[]; note?: string }
  | { kind: 'revise'; say: string[] }
  | { kind: 'edit'; say: string[] }
  | { kind: 'abort'; detail: string }
  | { kind: 'unanswered'; detail: string };

/** The line the conversation gets for what the person answered at a point. */
export function pointLine(point: string, text: string): string {
  return `User [${point}] ${text}`;
}

/** After a document was revised and then passed: the model re-checks what it concluded from the earlier version. */
export const REVISED_NOTE =
  '[checkpoint] The document above was revised before it was approved. Work from the approved text as it stands: a conclusion drawn from an earlier version, such as that something is already done, may no longer hold; check it against the approved text.';

/**
 * Routes `answer` (the option's label, `Yes`/`No`, the typed text; empty when
 * the point passed on its own) at `point`, in `round`; `undefined` when
 * nobody answered within `ask_timeout`.
 */
export function routePointAnswer(point: InteractionPoint, round: number, answer: string | undefined): PointStep {
  if (answer === undefined)
    return point.unattended === 'ask'
      ? {
          kind: 'unanswered',
          detail: `checkpoint "${point.name}" went unanswered within the ask timeout; the run stopped rather than pass it unread`,
        }
      : { kind: 'pass', say: [] };
  const say = answer.trim() === '' ? [] : [pointLine(point.name, answer)];
  const capped = round + 1 >= MAX_REVISION_ROUNDS;
  const listed = (labels: readonly string[]) => matchLabel(labels, answer) !== undefined;
  const directive = Object.entries(point.directives).find(([label]) => matchLabel([label], answer) !== undefined)?.[1];
  if (listed(point.abortOptions))
    return { kind: 'abort', detail: `checkpoint "${point.name}" was answered "${answer}", one of its abort_options` };
  if (listed(point.editOptions)) return capped ? { kind: 'pass', say } : { kind: 'edit', say };
  if (directive !== undefined)
    return capped
      ? { kind: 'pass', say }
      : { kind: 'revise', say: [...say, pointLine(point.name, `directive: ${directive}`)] };
  // A confirm point's "No" that no list names ends the run rather than passing it.
  if (point.style === 'confirm' && answer === 'No')
    return { kind: 'abort', detail: `checkpoint "${point.name}" was answered "No"` };
  return round > 0 ? { kind: 'pass', say, note: REVISED_NOTE } : { kind: 'pass', say };
}

/**
 * After the person edited the document at an edit option: their version (when
 * they sent one) is what the point asks about again, and the model is told to
 * adopt it.
 */
export function afterPointEdit(
  point: InteractionPoint,
  edited: string | undefined,
): { say: string[]; document?: string } {
  if (edited === undefined || edited.trim() === '') return { say: [] };
  return {
    say: [
      pointLine(
        point.name,
        `edited the document directly. Adopt this exact text as the authoritative version and present it again:\n${edited}`,
      ),
    ],
    document: edited,
  };
}

/** Where the checkpoints stand after a step at point `index`; undefined once the last point passed. */
export function nextCheckpoint(
  def: StageDef,
  index: number,
  round: number,
  step: Extract<PointStep, { kind: 'pass' | 'revise' | 'edit' }>,
): CheckpointAt | undefined {
  if (step.kind !== 'pass') return { point: index, round: round + 1 };
  return index + 1 < (def.interactionPoints?.length ?? 0) ? { point: index + 1, round: 0 } : undefined;
}

/** The text a point writes into its `document_region`: a person's edit is marked so the model keeps it. */
export function documentText(document: string, edited: boolean): string {
  return edited ? `[revised by the user: keep these changes]\n${document}` : document;
}
