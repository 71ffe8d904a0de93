/**
 * People in the loop, as pure rules (docs/reference/operators.md): the
 * shapes of the run's updates, their validation, what a stage visit does
 * with each one it receives, which `LeviathStatus` a run shows, and the tool
 * results of denied, unanswered and unattended asks. The run's validators,
 * the stage visit and the tests share these, so a rule has one home. Pure:
 * imported by workflow code.
 */

import { formatDuration } from '../blueprint/duration.js';
import type { RuntimeCode } from '../error-codes.js';
import { formatCoded } from '../errors.js';
import type { Blueprint } from '../shapes/blueprint.js';
import type { ToolCall } from '../shapes/content.js';
import { canonicalTool } from '../tools/names.js';
import { decidePermission, mergedPermissions } from '../tools/permissions.js';
import { utf8Bytes } from '../truncate.js';
import type { VisitCounters } from './live-progress.js';

/** The values of the `LeviathStatus` search attribute (docs/reference/operators.md#statuses). */
export const LEVIATH_STATUSES = ['running', 'waiting', 'paused', 'completed', 'failed', 'cancelled', 'stuck'] as const;
export type LeviathStatus = (typeof LEVIATH_STATUSES)[number];

/** The largest message, answer or note an update may carry. */
export const MAX_OPERATOR_TEXT_BYTES = 65_536;

/** The run's updates, by the name a person sends. */
export const OPERATOR_UPDATES = ['message', 'approve', 'deny', 'answer', 'pause', 'resume'] as const;
export type OperatorUpdate = (typeof OPERATOR_UPDATES)[number];

export type OperatorOp =
  | { kind: 'message'; text: string }
  | { kind: 'approve' | 'deny'; call?: string; note?: string }
  | { kind: 'answer'; call?: string; text: string }
  | { kind: 'pause' }
  | { kind: 'resume' };

export interface MessageReceipt {
  stage: string | null;
  turn: number | null;
  stageTurn: number | null;
  held: boolean;
}
export interface Decision {
  call: string;
  tool: string;
  decision: 'approved' | 'denied';
  note?: string;
}
export interface Answered {
  call: string;
  question: string;
}
export interface PauseState {
  paused: boolean;
  stage: string | null;
}
export type OperatorReturn = MessageReceipt | Decision | Answered | PauseState;

/** A call or question that waits for a person. */
export interface PendingAsk {
  kind: 'approval' | 'answer';
  call: string;
  tool: string;
  /** approval: the tool and its main argument; answer: the question. */
  subject: string;
  /** Workflow time in ms. */
  since: number;
  deadline: number;
}

/** What a person decided about one ask, kept until the visit reads it. */
export type AskDecision =
  | { kind: 'approved'; note?: string }
  | { kind: 'denied'; note?: string }
  | { kind: 'answered'; text: string };

export type OperatorCode =
  | 'run-finished'
  | 'bad-update'
  | 'text-empty'
  | 'text-too-large'
  | 'nothing-pending'
  | 'call-not-waiting'
  | 'call-ambiguous'
  | 'already-paused'
  | 'not-paused';

export interface Refusal {
  code: OperatorCode & RuntimeCode;
  message: string;
}

export type OpReply = { ok: true; value: OperatorReturn } | { ok: false; refusal: Refusal };

function refuse(code: Refusal['code'], message: string): Refusal {
  return { code, message };
}

function checkText(text: string, what: string): Refusal | undefined {
  if (text.trim() === '') return refuse('text-empty', `The ${what} is empty; send some text.`);
  const bytes = utf8Bytes(text);
  if (bytes > MAX_OPERATOR_TEXT_BYTES)
    return refuse(
      'text-too-large',
      `The ${what} is ${bytes} bytes, over the limit of ${MAX_OPERATOR_TEXT_BYTES}; shorten it, or put the text in a file the agent can read.`,
    );
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(args: Record<string, unknown>, key: string, update: string): Refusal | undefined {
  const value = args[key];
  if (value === undefined || value === null || typeof value === 'string') return undefined;
  return refuse('bad-update', `\`${update}\` takes \`${key}\` as a string; it was ${typeof value}.`);
}

/**
 * Reads an update's argument into an operation: the shape, empty text and
 * the size limit. The situation (what waits, paused or not) is checked by
 * `checkOperatorOp`.
 */
export function parseOperatorOp(update: OperatorUpdate, arg: unknown): OperatorOp | Refusal {
  switch (update) {
    case 'message': {
      if (typeof arg !== 'string')
        return refuse('bad-update', `\`message\` takes the text as a string, such as "Look at the tests first".`);
      return checkText(arg, 'message') ?? { kind: 'message', text: arg };
    }
    case 'approve':
    case 'deny': {
      if (arg === undefined || arg === null) return { kind: update };
      if (!isRecord(arg))
        return refuse('bad-update', `\`${update}\` takes { "call"?: "<call id>", "note"?: "<text>" } or nothing.`);
      const bad = optionalString(arg, 'call', update) ?? optionalString(arg, 'note', update);
      if (bad) return bad;
      const note = typeof arg.note === 'string' && arg.note.trim() !== '' ? arg.note : undefined;
      if (note !== undefined && utf8Bytes(note) > MAX_OPERATOR_TEXT_BYTES)
        return refuse('text-too-large', `The note is over ${MAX_OPERATOR_TEXT_BYTES} bytes; shorten it.`);
      return {
        kind: update,
        ...(typeof arg.call === 'string' && arg.call !== '' ? { call: arg.call } : {}),
        ...(note !== undefined ? { note } : {}),
      };
    }
    case 'answer': {
      const args = typeof arg === 'string' ? { text: arg } : arg;
      if (!isRecord(args) || typeof args.text !== 'string')
        return refuse(
          'bad-update',
          '`answer` takes the answer as a string, or { "call"?: "<call id>", "text": "<answer>" }.',
        );
      const bad = optionalString(args, 'call', update);
      if (bad) return bad;
      return (
        checkText(args.text, 'answer') ?? {
          kind: 'answer',
          text: args.text,
          ...(typeof args.call === 'string' && args.call !== '' ? { call: args.call } : {}),
        }
      );
    }
    case 'pause':
    case 'resume':
      return { kind: update };
  }
}

export function isRefusal(value: unknown): value is Refusal {
  return isRecord(value) && typeof value.code === 'string' && typeof value.message === 'string' && !('kind' in value);
}

/** The ask a decision or an answer is about: the one named, or the only one of its kind. */
export function resolveAsk(
  asks: readonly PendingAsk[],
  kind: PendingAsk['kind'],
  call: string | undefined,
): PendingAsk | Refusal {
  const open = asks.filter((a) => a.kind === kind);
  const what = kind === 'approval' ? 'tool call waits for a decision' : 'question waits for an answer';
  if (open.length === 0)
    return refuse('nothing-pending', `No ${what}; \`lev show\` or the progress query says what the run is doing.`);
  if (call !== undefined) {
    const hit = open.find((a) => a.call === call);
    return (
      hit ??
      refuse('call-not-waiting', `No ${what} with the id "${call}"; waiting: ${open.map((a) => a.call).join(', ')}.`)
    );
  }
  if (open.length > 1)
    return refuse(
      'call-ambiguous',
      `${open.length} calls wait (${open.map((a) => a.call).join(', ')}); name the one you mean.`,
    );
  return open[0] as PendingAsk;
}

/** What the run's validators see: whether it is ending, paused, and what its live visit waits for. */
export interface OperatorView {
  ended: boolean;
  paused: boolean;
  asks: readonly PendingAsk[];
}

/** Checks an operation against the run's situation; undefined when it may go ahead. */
export function checkOperatorOp(op: OperatorOp, view: OperatorView): Refusal | undefined {
  if (view.ended) return refuse('run-finished', 'The run has ended; updates go only to runs that are still going.');
  switch (op.kind) {
    case 'approve':
    case 'deny':
    case 'answer': {
      const ask = resolveAsk(view.asks, op.kind === 'answer' ? 'answer' : 'approval', op.call);
      return isRefusal(ask) ? ask : undefined;
    }
    case 'pause':
      return view.paused ? refuse('already-paused', 'The run is already paused; send `resume` to go on.') : undefined;
    case 'resume':
      return view.paused ? undefined : refuse('not-paused', 'The run is not paused, so there is nothing to resume.');
    case 'message':
      return undefined;
  }
}

/** An update's argument read and checked; what a validator throws when it is a refusal. */
export function validateOperatorOp(update: OperatorUpdate, arg: unknown, view: OperatorView): OperatorOp | Refusal {
  const op = parseOperatorOp(update, arg);
  if (isRefusal(op)) return op;
  return checkOperatorOp(op, view) ?? op;
}

/** A stage visit's side of the loop: what it holds for people, carried across continue-as-new. */
export interface StageOperatorState {
  /** Messages to write into the conversation before the next inference, oldest first. */
  inbox: string[];
  /** Messages for a later stage that accepts them. */
  held: string[];
  paused: boolean;
  asks: PendingAsk[];
  /** Decisions made and not yet read by the visit, by call id. */
  decisions: Record<string, AskDecision>;
  /** An interactive stage waits for a person's reply. */
  waitingReply: boolean;
}

export function freshStageOperators(carry?: OperatorCarry, acceptsMessages = true): StageOperatorState {
  const queued = [...(carry?.inbox ?? []), ...(carry?.held ?? [])];
  return {
    inbox: acceptsMessages ? queued : [],
    held: acceptsMessages ? [] : queued,
    paused: carry?.paused ?? false,
    asks: [],
    decisions: {},
    waitingReply: false,
  };
}

/** What passes between visits and across continue-as-new. */
export interface OperatorCarry {
  inbox?: string[];
  held?: string[];
  paused?: boolean;
}

export function operatorCarry(state: StageOperatorState): OperatorCarry {
  return { inbox: [...state.inbox], held: [...state.held], paused: state.paused };
}

export interface StageOpContext {
  stage: string;
  acceptsMessages: boolean;
  /** Inferences of the run so far (the one in flight not counted). */
  inferences: number;
  visitTurns: number;
  /** An inference is running now, so a message is read by the one after it. */
  inferring: boolean;
}

/**
 * What a stage visit does with an operation the run forwarded: the new
 * operator state and the answer for the sender. The visit re-checks what
 * the run's validator checked, since the situation may have changed since.
 */
export function applyStageOp(
  state: StageOperatorState,
  op: OperatorOp,
  ctx: StageOpContext,
): { state: StageOperatorState; reply: OpReply } {
  const refused = (refusal: Refusal) => ({ state, reply: { ok: false as const, refusal } });
  const done = (next: StageOperatorState, value: OperatorReturn) => ({
    state: next,
    reply: { ok: true as const, value },
  });
  switch (op.kind) {
    case 'message': {
      if (state.waitingReply || ctx.acceptsMessages) {
        const ahead = ctx.inferring && !state.waitingReply ? 2 : 1;
        return done(
          { ...state, inbox: [...state.inbox, op.text] },
          { stage: ctx.stage, turn: ctx.inferences + ahead, stageTurn: ctx.visitTurns + ahead, held: false },
        );
      }
      return done(
        { ...state, held: [...state.held, op.text] },
        { stage: null, turn: null, stageTurn: null, held: true },
      );
    }
    case 'approve':
    case 'deny':
    case 'answer': {
      const ask = resolveAsk(state.asks, op.kind === 'answer' ? 'answer' : 'approval', op.call);
      if (isRefusal(ask)) return refused(ask);
      const decision: AskDecision =
        op.kind === 'answer'
          ? { kind: 'answered', text: op.text }
          : {
              kind: op.kind === 'approve' ? 'approved' : 'denied',
              ...(op.note !== undefined ? { note: op.note } : {}),
            };
      const next = {
        ...state,
        asks: state.asks.filter((a) => a.call !== ask.call),
        decisions: { ...state.decisions, [ask.call]: decision },
      };
      if (op.kind === 'answer') return done(next, { call: ask.call, question: ask.subject });
      return done(next, {
        call: ask.call,
        tool: ask.tool,
        decision: op.kind === 'approve' ? 'approved' : 'denied',
        ...(op.note !== undefined ? { note: op.note } : {}),
      });
    }
    case 'pause':
      if (state.paused) return refused(refuse('already-paused', 'The run is already paused; send `resume` to go on.'));
      return done({ ...state, paused: true }, { paused: true, stage: ctx.stage });
    case 'resume':
      if (!state.paused) return refused(refuse('not-paused', 'The run is not paused, so there is nothing to resume.'));
      return done({ ...state, paused: false }, { paused: false, stage: ctx.stage });
  }
}

/** What the run does with an operation while no visit runs: messages and pauses wait for the next visit. */
export function applyBetweenVisits(
  carry: Required<OperatorCarry>,
  op: OperatorOp,
): { carry: Required<OperatorCarry>; reply: OpReply } {
  const stage = { stage: null };
  switch (op.kind) {
    case 'message':
      return {
        carry: { ...carry, held: [...carry.held, op.text] },
        reply: { ok: true, value: { ...stage, turn: null, stageTurn: null, held: true } },
      };
    case 'pause':
    case 'resume': {
      const paused = op.kind === 'pause';
      if (carry.paused === paused)
        return {
          carry,
          reply: {
            ok: false,
            refusal: paused
              ? refuse('already-paused', 'The run is already paused; send `resume` to go on.')
              : refuse('not-paused', 'The run is not paused, so there is nothing to resume.'),
          },
        };
      return { carry: { ...carry, paused }, reply: { ok: true, value: { paused, ...stage } } };
    }
    default: {
      const ask = resolveAsk([], op.kind === 'answer' ? 'answer' : 'approval', op.call);
      return { carry, reply: { ok: false, refusal: ask as Refusal } };
    }
  }
}

/** What `Progress.waiting` says the run waits for. */
export type WaitingKind = 'message' | 'approval' | 'answer' | 'resume';

export function waitingKind(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
}): WaitingKind | undefined {
  if (w.asks.some((a) => a.kind === 'approval')) return 'approval';
  if (w.asks.some((a) => a.kind === 'answer')) return 'answer';
  if (w.waitingReply) return 'message';
  if (w.paused) return 'resume';
  return undefined;
}

/** The run's `LeviathStatus` while it goes on (the end states are set where the run ends). */
export function runStatus(w: {
  asks: readonly PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  stuck: boolean;
}): LeviathStatus {
  const waiting = waitingKind(w);
  if (waiting === 'approval' || waiting === 'answer' || waiting === 'message') return 'waiting';
  if (w.paused) return 'paused';
  return w.stuck ? 'stuck' : 'running';
}

/** The main argument of a call, as the details and the questions show it. */
export function callSubject(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = call.arguments;
  const subject = args.path ?? args.command ?? args.pattern ?? args.question ?? args.prompt ?? '';
  const text = typeof subject === 'string' ? subject : JSON.stringify(subject);
  const line = text.split('\n')[0] ?? '';
  return `${call.name}${line ? ` ${line.length > 120 ? `${line.slice(0, 119)}…` : line}` : ''}`;
}

/** The question of an `ask_user` call (`question`, or the original's `prompt`); undefined when it has none. */
export function askUserQuestion(args: Record<string, unknown>): string | undefined {
  const q = args.question ?? args.prompt;
  return typeof q === 'string' && q.trim() !== '' ? q : undefined;
}

/**
 * Whether a built-in call must wait for a person's approval: an `ask`
 * permission the safe list does not cover, in an attended run. Unattended
 * runs leave the refusal to the tool activity, as before.
 */
export function needsApproval(bp: Blueprint, stage: string, call: ToolCall, unattended: boolean): boolean {
  if (unattended) return false;
  const decision = decidePermission(
    canonicalTool(call.name),
    call.arguments,
    mergedPermissions(bp, stage),
    bp.safeCommands.shell,
    false,
  );
  return decision.mode === 'ask';
}

/**
 * What a run that ends holding messages says of them (its `messages-undelivered`
 * diagnostic, `lev run`, `lev result`): nobody read them.
 */
export function undeliveredText(count: number): string {
  const what = count === 1 ? '1 message was' : `${count} messages were`;
  return `${what} never delivered: no later stage accepts messages (\`accepts_messages = false\`); send them while a stage that accepts messages runs.`;
}

/** The tool result of a call the operator denied. */
export function deniedText(subject: string, note?: string): string {
  return formatCoded('call-denied', `The operator denied ${subject}${note ? `: ${note}` : ''}. The call was not run.`);
}

/** The tool result of an ask nobody decided within `ask_timeout`. */
export function askTimedOutText(ask: Pick<PendingAsk, 'kind' | 'tool'>, timeoutSecs: number): string {
  const limit = formatDuration(timeoutSecs);
  return ask.kind === 'approval'
    ? formatCoded('ask-timed-out', `Nobody approved ${ask.tool} within ${limit}; the call was not run.`)
    : formatCoded('ask-timed-out', `Nobody answered within ${limit}; go on without the answer.`);
}

/** The tool result of `ask_user` in a run nobody attends. */
export function askUserUnattendedText(): string {
  return formatCoded(
    'ask-user-unattended',
    'Nobody attends this run, so the question cannot be answered; decide for yourself and go on.',
  );
}

/** The tool result of an `ask_user` call without a question. */
export function askUserNoQuestionText(): string {
  return formatCoded('missing-argument', 'ask_user needs `question`: the question to put to the person.');
}

/** An update the run accepted, forwarded to its live visit (the `operator` signal). */
export interface ForwardedOp {
  id: number;
  op: OperatorOp;
}

/** What a visit waits for and holds, as it tells the run. */
export interface StageWaits {
  asks: PendingAsk[];
  waitingReply: boolean;
  paused: boolean;
  heldMessages: number;
}

export function stageWaits(state: StageOperatorState): StageWaits {
  return { asks: state.asks, waitingReply: state.waitingReply, paused: state.paused, heldMessages: state.held.length };
}

export const NO_WAITS: StageWaits = Object.freeze({ asks: [], waitingReply: false, paused: false, heldMessages: 0 });

/**
 * What a visit tells its run (the `stage-report` signal): its answer to a
 * forwarded update, a change of what it waits for or of its counters, or the
 * region set it had when it was cancelled. Every answer and change carries
 * the visit's counters, so the run's own progress is live
 * (`src/runtime/live-progress.ts`).
 */
export type StageReport<Outcome = unknown> =
  | { kind: 'ack'; id: number; reply: OpReply; waits: StageWaits; counters?: VisitCounters }
  | { kind: 'waits'; waits: StageWaits; counters?: VisitCounters }
  | { kind: 'cancelled'; outcome: Outcome };

/** The coded message a refused update fails with. */
export function refusalText(refusal: Refusal): string {
  return formatCoded(refusal.code, refusal.message);
}
