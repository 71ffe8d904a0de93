/**
 * The shape checks every signal handler of the run and the stage visit makes
 * before it touches state (docs/reference/operators.md#rejected-messages).
 * Anyone who can signal the namespace can send any payload under a
 * workflow's signal names, and a handler that reads a field of a string
 * throws inside the workflow task, which then fails at every attempt: no
 * turn runs again and the run cannot even be cancelled. A malformed signal
 * is dropped instead, counted and shown; updates are checked by their
 * validators (`people/updates.ts`), which refuse with `bad-update`. The
 * checks accept every report and forwarded request earlier versions sent,
 * so histories replay, and ignore fields they do not know, so a newer
 * visit's report reaches an older run. Pure: imported by workflow code.
 */

import { formatCoded } from '../errors.js';
import { cutBytes } from '../truncate.js';
import type { MetricAdd } from './fleet-metrics.js';
import { RECENT_REJECTED } from './live-progress.js';
import {
  type ForwardedRequest,
  isRefusal,
  OPERATOR_UPDATES,
  type OperatorUpdate,
  parseOperatorRequest,
} from './people/updates.js';
import type { StageReport } from './people/visit-side.js';
import type { RejectedMessages, StageOutcome } from './types.js';

/** A message's argument read as what its handler takes, or what is wrong with it. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Says what is wrong with a value at `at`, or nothing when it fits. */
type Check = (value: unknown, at: string) => string | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a value is, in a problem's words; never the value itself, which may be a megabyte. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const wrong = (want: string) => (value: unknown, at: string) => `${at} should be ${want}; it is ${kindOf(value)}`;

const str: Check = (v, at) => (typeof v === 'string' ? undefined : wrong('a string')(v, at));
const num: Check = (v, at) => (typeof v === 'number' && Number.isFinite(v) ? undefined : wrong('a number')(v, at));
const bool: Check = (v, at) => (typeof v === 'boolean' ? undefined : wrong('true or false')(v, at));
const record: Check = (v, at) => (isRecord(v) ? undefined : wrong('an object')(v, at));

function optional(check: Check): Check {
  return (v, at) => (v === undefined ? undefined : check(v, at));
}

function either(a: Check, b: Check, want: string): Check {
  return (v, at) => (a(v, at) === undefined || b(v, at) === undefined ? undefined : wrong(want)(v, at));
}

function literal(...values: readonly string[]): Check {
  return (v, at) =>
    typeof v === 'string' && values.includes(v) ? undefined : wrong(`one of ${values.join(', ')}`)(v, at);
}

function arrayOf(item: Check): Check {
  return (v, at) => {
    if (!Array.isArray(v)) return wrong('an array')(v, at);
    for (const [i, x] of v.entries()) {
      const problem = item(x, `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object with these fields; fields it does not name are left alone. */
function shape(fields: Record<string, Check>): Check {
  return (v, at) => {
    if (!isRecord(v)) return wrong('an object')(v, at);
    for (const [key, check] of Object.entries(fields)) {
      const problem = check(v[key], `${at}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

const content = either(str, shape({ hash: str, bytes: num, preview: str }), 'text or a blob reference');
const nullable = (check: Check, want: string) =>
  either(check, (v, at) => (v === null ? undefined : wrong('null')(v, at)), want);

const pendingAsk = shape({
  kind: literal('approval', 'answer'),
  call: str,
  tool: str,
  subject: str,
  since: num,
  deadline: num,
  form: optional(str),
  options: optional(arrayOf(str)),
  document: optional(content),
  point: optional(str),
  optional: optional(bool),
});

const stageWaits = shape({
  asks: arrayOf(pendingAsk),
  waitingReply: bool,
  paused: bool,
  heldMessages: num,
  toolWorker: optional(shape({ taskQueue: str, workdir: str, since: num, failsAt: num })),
  provider: optional(shape({ provider: str, model: str, error: str, since: num, giveUpAt: num })),
});

const usage = shape({
  calls: num,
  promptTokens: num,
  completionTokens: num,
  cacheReadTokens: num,
  cacheWriteTokens: num,
});

const counters = shape({
  at: num,
  inferences: num,
  visitTurns: num,
  usage,
  cost: shape({ usd: nullable(num, 'a number or null'), priced: arrayOf(str), unpriced: arrayOf(str) }),
  regions: arrayOf(shape({ name: str, kind: str, tokens: num, budget: num, entries: num })),
  window: shape({ max: num, used: num, gap: num }),
  recentCalls: arrayOf(shape({ tool: str, subject: str, ok: bool })),
  gates: shape({ attempts: num, blocked: num }),
  workers: optional(shape({ queued: num, running: num, done: num, failed: num })),
});

const reply: Check = (v, at) => {
  if (!isRecord(v)) return wrong('an object')(v, at);
  if (v.ok === true) return record(v.value, `${at}.value`);
  if (v.ok === false) return shape({ code: str, message: str })(v.refusal, `${at}.refusal`);
  return wrong('true or false')(v.ok, `${at}.ok`);
};

const carry = shape({ inbox: optional(arrayOf(str)), held: optional(arrayOf(str)), paused: optional(bool) });

const outcome = shape({
  end: str,
  finalContent: content,
  carried: shape({ state: record, snapshot: nullable(str, 'a hash or null'), ops: arrayOf(record) }),
  inferences: num,
  visitTurns: num,
  facts: record,
  usage,
  operators: optional(carry),
});

const REPORTS: Record<StageReport['kind'], Check> = {
  ack: shape({ id: num, reply, waits: stageWaits, counters: optional(counters), seq: optional(num) }),
  waits: shape({ waits: stageWaits, counters: optional(counters), seq: optional(num) }),
  cancelled: shape({ outcome }),
};

/** A `stage-report` signal's argument: an answer, a change of waits, or a cancelled visit's outcome. */
export function checkStageReport(arg: unknown): Checked<StageReport<StageOutcome>> {
  const problem =
    shape({ kind: literal(...Object.keys(REPORTS)) })(arg, 'the report') ??
    REPORTS[(arg as { kind: StageReport['kind'] }).kind](arg, 'the report');
  return problem === undefined ? { ok: true, value: arg as StageReport<StageOutcome> } : { ok: false, problem };
}

/** The argument of the update named `kind`, as a forwarded operation carries it. */
function updateArgument(kind: OperatorUpdate, op: Record<string, unknown>): unknown {
  const { kind: _kind, ...fields } = op;
  if (kind === 'message') return op.text;
  if (kind === 'pause' || kind === 'resume') return undefined;
  return fields;
}

/**
 * An `operator` signal's argument: a numbered operation the run accepted, read
 * again by the rules its validator read it with.
 */
export function checkForwardedRequest(arg: unknown): Checked<ForwardedRequest> {
  const problem = shape({ id: num, op: shape({ kind: literal(...OPERATOR_UPDATES) }) })(arg, 'the request');
  if (problem) return { ok: false, problem };
  const { id, op } = arg as { id: number; op: Record<string, unknown> & { kind: OperatorUpdate } };
  const read = parseOperatorRequest(op.kind, updateArgument(op.kind, op));
  if (isRefusal(read)) return { ok: false, problem: `the request.op: ${read.message}` };
  return { ok: true, value: { id, op: read } };
}

/** A `message` signal's argument: the text, as the `message` update takes it. */
export function checkMessageText(arg: unknown): Checked<string> {
  const read = parseOperatorRequest('message', arg);
  return isRefusal(read) ? { ok: false, problem: read.message } : { ok: true, value: arg as string };
}

/** The arguments of a signal that takes none (`hand-over`): any given is not what its sender meant. */
export function checkNoArgument(args: readonly unknown[]): Checked<undefined> {
  const given = args.find((a) => a !== undefined);
  return args.every((a) => a === undefined)
    ? { ok: true, value: undefined }
    : { ok: false, problem: `it takes no argument; it was given ${kindOf(given)}` };
}

/** The longest line a dropped message leaves, in bytes. */
const REJECTED_LINE_BYTES = 300;

/** The line a dropped signal leaves in the worker's log and the workflow's details. */
export function rejectedLine(message: string, problem: string): string {
  return cutBytes(formatCoded('bad-signal', `\`${message}\` signal dropped: ${problem}`), REJECTED_LINE_BYTES);
}

/** The record with one more dropped message. */
export function noteRejected(before: RejectedMessages | undefined, line: string): RejectedMessages {
  return { count: (before?.count ?? 0) + 1, recent: [...(before?.recent ?? []), line].slice(-RECENT_REJECTED) };
}

/** The count of a dropped message (`leviath_rejected_messages_total`), by workflow and message name. */
export function rejectedMetric(workflow: 'run' | 'visit', message: string): MetricAdd {
  return { metric: 'rejectedMessages', value: 1, tags: { workflow, message } };
}
