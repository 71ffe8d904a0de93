/**
 * The checkpoints of an `interactive_points` stage
 * (docs/reference/interaction.md#interaction-points), asked when its model
 * answers without tool calls: each point writes the document into its
 * `document_region`, asks a person (or passes on its own in a run nobody
 * attends), and its answer passes it, sends the stage back to revise, opens
 * the document for an edit, or aborts the run. The rules are in
 * `src/runtime/people/interaction-points.ts`. Workflow code: the writes, the
 * waits and the user turns here are what recorded histories replay.
 */
import type { Content } from '../../src/context/index.js';
import {
  type AskDecision,
  DEFAULT_ASK_TIMEOUT_SECS,
  type PendingAsk,
  type StageInput,
  type VisitFacts,
} from '../../src/runtime/index.js';
import type { VisitPatches } from '../../src/runtime/patches.js';
import {
  afterPointEdit,
  currentPoint,
  documentText,
  nextCheckpoint,
  pointAsk,
  pointAsksPerson,
  pointEditAsk,
  routePointAnswer,
} from '../../src/runtime/people/interaction-points.js';
import type { InteractionPoint, StageDef } from '../../src/shapes/frozen-blueprint.js';
import type { EngineDriver } from '../engine-driver.js';

/** What of the visit its checkpoints read and change (`StageVisit` is one). */
export interface CheckpointVisit {
  readonly input: StageInput;
  readonly def: StageDef;
  readonly driver: EngineDriver;
  readonly operators: { decide(asks: PendingAsk[], timeoutMs: number): Promise<Map<string, AskDecision>> };
  readonly facts: VisitFacts;
  /** The stage's last reply, the document a point is about until a person edits it. */
  readonly finalContent: Content;
  /** Its tokens, which a stored (blob) reply is written with. */
  readonly finalTokens: number;
  readonly patches: VisitPatches;
  /** A user turn of the conversation; `runtime`: the runtime's words, not a person's. */
  userTurn(text: string, runtime?: boolean): Promise<void>;
  /** Moves the stage's checkpoint on; none once every point passed. */
  atCheckpoint(at: VisitFacts['checkpoint']): void;
}

/** How a visit's checkpoints ended: every point passed, the stage runs again, or the run ends. */
export type CheckpointEnd =
  | { kind: 'passed' }
  | { kind: 'revise' }
  | { kind: 'abort'; detail: string }
  | { kind: 'unanswered'; detail: string };

/** A checkpoint that ends the run: an abort option, or a point nobody answered. */
export type CheckpointStop = Extract<CheckpointEnd, { detail: string }>;

/**
 * The checkpoint step after a reply without tool calls: true when the stage
 * may end, false when it runs again, or how the run ends.
 */
export async function checkpointStep(v: CheckpointVisit): Promise<boolean | CheckpointStop> {
  // Only a visit recorded before interaction points goes without them, and none had such a stage.
  if (!v.patches.points) return true;
  const end = await askCheckpoints(v);
  return end.kind === 'passed' || (end.kind !== 'revise' && end);
}

/** Asks the stage's points in turn, from where its checkpoints stand. */
export async function askCheckpoints(v: CheckpointVisit): Promise<CheckpointEnd> {
  const timeoutMs = (v.input.blueprint.run?.askTimeoutSecs ?? DEFAULT_ASK_TIMEOUT_SECS) * 1000;
  let document: Content = v.finalContent;
  let edited = false;
  for (;;) {
    const at = currentPoint(v.def, v.facts.checkpoint);
    if (!at) return { kind: 'passed' };
    const { point, index, round } = at;
    await keepDocument(v, point, document, edited);
    const answer = pointAsksPerson(point, v.input.options.unattended)
      ? await ask(v, pointAsk(point, round, times(timeoutMs), document), timeoutMs)
      : '';
    const step = routePointAnswer(point, round, answer);
    if (step.kind === 'abort' || step.kind === 'unanswered') return step;
    for (const line of step.say) await v.userTurn(line);
    if (step.kind === 'pass' && step.note) await v.userTurn(step.note, true);
    const next = nextCheckpoint(v.def, index, round, step);
    v.atCheckpoint(next);
    if (!next) return { kind: 'passed' };
    if (step.kind === 'revise') return { kind: 'revise' };
    if (step.kind === 'edit') {
      const text = await ask(v, pointEditAsk(point, round, times(timeoutMs), document), timeoutMs);
      const after = afterPointEdit(point, text);
      for (const line of after.say) await v.userTurn(line);
      if (after.document !== undefined) {
        document = after.document;
        edited = true;
      }
    }
  }
}

function times(timeoutMs: number): { since: number; deadline: number } {
  const since = Date.now();
  return { since, deadline: since + timeoutMs };
}

/** The person's answer to one question; undefined when nobody answered within `ask_timeout`. */
async function ask(v: CheckpointVisit, question: PendingAsk, timeoutMs: number): Promise<string | undefined> {
  const decided = (await v.operators.decide([question], timeoutMs)).get(question.call);
  return decided?.kind === 'answered' ? decided.text : undefined;
}

/** The document the point asks about replaces what its `document_region` held. */
async function keepDocument(v: CheckpointVisit, point: InteractionPoint, document: Content, edited: boolean) {
  const region = point.documentRegion;
  if (!region || (typeof document === 'string' && document.trim() === '')) return;
  if (typeof document === 'string') {
    const content = documentText(document, edited);
    const tokens = await v.driver.count(content);
    await v.driver.apply({
      kind: 'contextTool',
      tool: 'context_write',
      args: { region, content },
      counts: { content: tokens },
    });
    return;
  }
  // A long reply is a blob the inference stored: written as stored text, with its count.
  await v.driver.apply({
    kind: 'contextTool',
    tool: 'context_write',
    args: { region, content: document },
    counts: { content: v.finalTokens },
    blobArgs: ['content'],
  });
}
