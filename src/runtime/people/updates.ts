/**
 * The updates people send a run (docs/reference/operators.md): their shapes, how an
 * argument is read and checked against the run's situation, and the coded
 * refusal of one that may not go ahead. The run's validators, the stage
 * visit and the tests share these, so a rule has one home. Pure: imported by
 * workflow code.
 */

import type { RuntimeCode } from '../../error-codes.js';
import { formatCoded } from '../../errors.js';
import { utf8Bytes } from '../../truncate.js';
import type { PendingAsk } from '../types.js';
import { type AnswerInput, type FittedAnswer, fitAnswer } from './asks.js';

/** The largest message, answer or note an update may carry. */
export const MAX_OPERATOR_TEXT_BYTES = 65_536;

/** The run's updates, by the name a person sends. */
export const OPERATOR_UPDATES = ['message', 'approve', 'deny', 'answer', 'pause', 'resume'] as const;
export type OperatorUpdate = (typeof OPERATOR_UPDATES)[number];

export type OperatorRequest =
  | { kind: 'message'; text: string }
  | { kind: 'approve' | 'deny'; call?: string; note?: string }
  | ({ kind: 'answer'; call?: string } & AnswerInput)
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
  /** The option a `choice` answer picked, or `Yes`/`No` of a `confirm` one (docs/reference/interaction.md#answering). */
  answer?: string;
}
export interface PauseState {
  paused: boolean;
  stage: string | null;
}
export type OperatorReturn = MessageReceipt | Decision | Answered | PauseState;

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
  | 'bad-answer'
  | 'already-paused'
  | 'not-paused';

export interface Refusal {
  code: OperatorCode & RuntimeCode;
  message: string;
}

export type OperatorReply = { ok: true; value: OperatorReturn } | { ok: false; refusal: Refusal };

export function refuse(code: Refusal['code'], message: string): Refusal {
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
 * `checkOperatorRequest`.
 */
export function parseOperatorRequest(update: OperatorUpdate, arg: unknown): OperatorRequest | Refusal {
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
    case 'answer':
      return parseAnswer(arg);
    case 'pause':
    case 'resume':
      // Nothing, or the empty object a form sends; anything else is a mistake worth saying.
      if (arg === undefined || arg === null || (isRecord(arg) && Object.keys(arg).length === 0))
        return { kind: update };
      return refuse('bad-update', `\`${update}\` takes no argument.`);
  }
}

const ANSWER_SHAPE =
  '`answer` takes the answer as a string, or { "call"?: "<call id>" } with one of "text": "<answer>", "choice": <option number or text>, "yes": true | false.';

/** An `answer` argument: a string, or the call with exactly one of text, choice and yes. */
function parseAnswer(arg: unknown): OperatorRequest | Refusal {
  if (typeof arg === 'string') return checkText(arg, 'answer') ?? { kind: 'answer', text: arg };
  if (!isRecord(arg)) return refuse('bad-update', ANSWER_SHAPE);
  const bad = optionalString(arg, 'call', 'answer');
  if (bad) return bad;
  const given = (['text', 'choice', 'yes'] as const).filter((k) => arg[k] !== undefined && arg[k] !== null);
  if (given.length !== 1) return refuse('bad-update', ANSWER_SHAPE);
  const call = typeof arg.call === 'string' && arg.call !== '' ? { call: arg.call } : {};
  const { text, choice, yes } = arg;
  if (typeof text === 'string') return checkText(text, 'answer') ?? { kind: 'answer', ...call, text };
  if (typeof yes === 'boolean') return { kind: 'answer', ...call, yes };
  if ((typeof choice === 'number' && Number.isInteger(choice) && choice >= 1) || typeof choice === 'string')
    return checkText(String(choice), 'choice') ?? { kind: 'answer', ...call, choice };
  return refuse('bad-update', ANSWER_SHAPE);
}

/** What an answer gives the question it answers, or the `bad-answer` refusal when it does not fit. */
export function answerFor(ask: PendingAsk, op: Extract<OperatorRequest, { kind: 'answer' }>): FittedAnswer | Refusal {
  const { kind: _kind, call: _call, ...answer } = op;
  const fitted = fitAnswer(ask, answer);
  return 'misfit' in fitted ? refuse('bad-answer', fitted.misfit) : fitted;
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
export function checkOperatorRequest(op: OperatorRequest, view: OperatorView): Refusal | undefined {
  if (view.ended) return refuse('run-finished', 'The run has ended; updates go only to runs that are still going.');
  switch (op.kind) {
    case 'approve':
    case 'deny': {
      const ask = resolveAsk(view.asks, 'approval', op.call);
      return isRefusal(ask) ? ask : undefined;
    }
    case 'answer': {
      const ask = resolveAsk(view.asks, 'answer', op.call);
      if (isRefusal(ask)) return ask;
      const fitted = answerFor(ask, op);
      return isRefusal(fitted) ? fitted : undefined;
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
export function validateOperatorRequest(
  update: OperatorUpdate,
  arg: unknown,
  view: OperatorView,
): OperatorRequest | Refusal {
  const op = parseOperatorRequest(update, arg);
  if (isRefusal(op)) return op;
  return checkOperatorRequest(op, view) ?? op;
}

/** An update the run accepted, forwarded to its live visit (the `operator` signal). */
export interface ForwardedRequest {
  id: number;
  op: OperatorRequest;
}

/** The coded message a refused update fails with. */
export function refusalText(refusal: Refusal): string {
  return formatCoded(refusal.code, refusal.message);
}
