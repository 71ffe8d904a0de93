/**
 * A stage visit's side of the people in the loop (docs/reference/operators.md):
 * it takes the updates its run forwards (the `operator` signal), answers
 * each one back (`stage-report`), tells the run whenever what it waits for
 * changes and, throttled, how far it has come (`src/runtime/live-progress.ts`),
 * and gives the visit its messages, its pause and the decisions on its asks. What each update does is `applyOperatorRequest` in
 * `src/runtime/people/`.
 */
import { condition, getExternalWorkflowHandle, log, setHandler } from '@temporalio/workflow';
import type { EventLog } from '../../src/runtime/event-log.js';
import {
  type AskDecision,
  applyOperatorRequest,
  checkForwardedRequest,
  checkNoArgument,
  type ForwardedRequest,
  freshMark,
  freshStageOperators,
  noteRejected,
  type OperatorCarry,
  operatorCarry,
  type PendingAsk,
  type ProviderWait,
  progressReportDue,
  type RejectedMessages,
  type ReportMark,
  rejectedLine,
  rejectedMetric,
  type StageOperatorState,
  type StageOutcome,
  type StageReport,
  type StageWaits,
  stageWaits,
  type ToolWorkerAbsence,
  type VisitCounters,
} from '../../src/runtime/index.js';
import { handOverSignal, operatorSignal, stageReportSignal } from '../../src/runtime/messages.js';
import { type WaitMark, waitEvents, waitOf } from '../../src/runtime/stream-events.js';
import { emit } from '../meter.js';

/** What the operator side needs of its visit. */
export interface OperatorHost {
  readonly runId: string;
  readonly stage: string;
  readonly acceptsMessages: boolean;
  counters(): { inferences: number; visitTurns: number };
  /** When the visit's last inference ended, as its result says; null before one. */
  lastInferenceEnd(): number | null;
  /** What the run's progress shows of the visit, as of now. */
  live(): VisitCounters;
  /** Something a person can see changed: rewrite the current details. */
  changed(): void;
  /** The visit's event stream, told when what it waits for changes (docs/reference/events.md). */
  events?: Pick<EventLog, 'append'>;
  /** A visit inside its run's own workflow hands its reports to the run directly instead of signalling it. */
  report?(report: StageReport<StageOutcome>): void;
  /** `RunOptions.progressReportMs`, when set. */
  reportIntervalMs?: number;
}

export class StageOperators {
  state: StageOperatorState;
  /** An inference is running now, so a message is read by the one after it. */
  inferring = false;
  /** The last time the visit told the run its counters. */
  private mark: ReportMark;
  /** The run asked the visit to hand over at its next turn, to continue as new (`src/runtime/continuation.ts`). */
  handOverAsked = false;
  /** The provider outage the visit waits out now (docs/reference/long-runs.md#provider-outages). */
  provider: ProviderWait | undefined;
  /** Reports sent by this run of the visit, which number them. */
  private reports = 0;
  /** Signals dropped for their shape (docs/reference/operators.md#rejected-messages). */
  rejected: RejectedMessages | undefined;

  constructor(
    private readonly host: OperatorHost,
    carry: OperatorCarry | undefined,
  ) {
    this.state = freshStageOperators(carry, host.acceptsMessages);
    this.mark = freshMark(host.counters().inferences);
  }

  install(): void {
    setHandler(operatorSignal, async (arg: unknown) => {
      const forwarded = checkForwardedRequest(arg);
      if (forwarded.ok) await this.receive(forwarded.value);
      else this.reject(operatorSignal.name, forwarded.problem);
    });
    setHandler(handOverSignal, (...args: unknown[]) => {
      const none = checkNoArgument(args);
      if (none.ok) this.handOverAsked = true;
      else this.reject(handOverSignal.name, none.problem);
    });
  }

  /** A signal dropped for its shape: in the worker's log, the metric and the visit's details. */
  reject(message: string, problem: string): void {
    const line = rejectedLine(message, problem);
    log.warn(line);
    emit([rejectedMetric('visit', message)]);
    this.rejected = noteRejected(this.rejected, line);
    this.changed();
  }

  /** What the visit waits for, as its stream last told it. */
  private waiting: WaitMark | undefined;

  /** Something a person can see changed: a wait that began or ended is told to the stream, and the details rewritten. */
  private changed(): void {
    const now = waitOf({ ...this.state, provider: this.provider });
    for (const e of waitEvents(this.waiting, now, this.state.decisions, Date.now())) this.host.events?.append(e);
    this.waiting = now;
    this.host.changed();
  }

  waits(): StageWaits {
    const waits = stageWaits(this.state);
    return this.provider ? { ...waits, provider: this.provider } : waits;
  }

  /**
   * The visit starts, goes on or stops waiting for a provider. The run hears of it when the
   * entry or the kind of its failure changes, not at every try, so a long outage adds few
   * events; the visit's own details show the last error each time.
   */
  async waitForProvider(wait: ProviderWait | undefined): Promise<void> {
    const before = this.provider;
    this.provider = wait;
    this.changed();
    if (!before || !wait ? before !== wait : waitNews(before, wait)) await this.reportWaits();
  }

  carry(): OperatorCarry {
    return operatorCarry(this.state);
  }

  /** An update the run forwarded: applied, and answered back to the run. */
  async receive({ id, op }: ForwardedRequest): Promise<void> {
    const { state, reply } = applyOperatorRequest(this.state, op, {
      stage: this.host.stage,
      acceptsMessages: this.host.acceptsMessages,
      ...this.host.counters(),
      inferring: this.inferring,
    });
    this.state = state;
    this.changed();
    await this.send({ kind: 'ack', id, reply, waits: this.waits() });
  }

  /** Tells the run what the visit waits for now. */
  async reportWaits(): Promise<void> {
    await this.send({ kind: 'waits', waits: this.waits() });
  }

  /** The workdir's tool worker is away, or back (undefined): shown, and told to the run. */
  async showToolWorker(absence: ToolWorkerAbsence | undefined): Promise<void> {
    const { toolWorker: _shown, ...rest } = this.state;
    this.state = absence ? { ...rest, toolWorker: absence } : rest;
    this.changed();
    await this.reportWaits();
  }

  /**
   * Tells the run the visit's counters when an inference was made since the
   * last report and the throttle allows it; the visit does not wait for the
   * signal to be delivered.
   */
  reportProgressIfDue(): void {
    const { inferences } = this.host.counters();
    if (!progressReportDue(this.mark, { at: this.host.lastInferenceEnd(), inferences }, this.host.reportIntervalMs))
      return;
    // A run that has ended takes no report, and the next inference goes on regardless.
    this.send({ kind: 'waits', waits: this.waits() }).catch(() => {});
  }

  /** Sends a report; an answer or a change of waits carries the counters as of now. */
  async send(report: StageReport<StageOutcome>): Promise<void> {
    let sent = report;
    if (report.kind !== 'cancelled') {
      const counters = this.host.live();
      sent = { ...report, counters, seq: ++this.reports };
      this.mark = { at: this.host.lastInferenceEnd() ?? this.mark.at, inferences: counters.inferences };
    }
    if (this.host.report) this.host.report(sent);
    else await getExternalWorkflowHandle(this.host.runId).signal(stageReportSignal, sent);
  }

  /** The messages to write before the next inference, oldest first; they leave the inbox. */
  takeMessages(): string[] {
    const messages = this.state.inbox;
    if (messages.length > 0) this.state = { ...this.state, inbox: [] };
    return messages;
  }

  /** The oldest message alone: an interactive stage's reply; the others wait for the next inference. */
  takeFirstMessage(): string | undefined {
    const [first, ...rest] = this.state.inbox;
    if (first !== undefined) this.state = { ...this.state, inbox: rest };
    return first;
  }

  /** Waits while the visit is paused; true when it was. */
  async holdWhilePaused(): Promise<boolean> {
    if (!this.state.paused) return false;
    this.changed();
    await condition(() => !this.state.paused);
    this.changed();
    return true;
  }

  /**
   * Waits until a person decided every ask, or until `timeoutMs` passed;
   * returns the decision of each call, none for the asks that timed out.
   */
  async decide(asks: PendingAsk[], timeoutMs: number): Promise<Map<string, AskDecision>> {
    this.state = { ...this.state, asks: [...this.state.asks, ...asks] };
    this.changed();
    await this.reportWaits();
    const calls = asks.map((a) => a.call);
    await condition(() => calls.every((c) => this.state.decisions[c] !== undefined), timeoutMs);
    const decided = new Map<string, AskDecision>();
    const decisions = { ...this.state.decisions };
    for (const call of calls) {
      const d = decisions[call];
      if (d) decided.set(call, d);
      delete decisions[call];
    }
    const timedOut = this.state.asks.some((a) => calls.includes(a.call));
    this.state = { ...this.state, asks: this.state.asks.filter((a) => !calls.includes(a.call)), decisions };
    this.changed();
    // A decision's answer already told the run; only asks that timed out are news to it.
    if (timedOut) await this.reportWaits();
    return decided;
  }

  /** An interactive stage waits for a person's reply: a forwarded message, or `legacy()` (the stage's own signal). */
  async awaitReply(legacy: () => boolean, report: boolean): Promise<void> {
    this.state = { ...this.state, waitingReply: true };
    this.changed();
    if (report) await this.reportWaits();
    await condition(() => legacy() || this.state.inbox.length > 0);
    this.state = { ...this.state, waitingReply: false };
    this.changed();
    if (report) await this.reportWaits();
  }
}

/** The failure's code, `[provider-server]`, tells one kind of outage from another. */
function waitNews(before: ProviderWait, now: ProviderWait): boolean {
  const kind = (w: ProviderWait) => /^\[[a-z0-9-]+\]/.exec(w.error)?.[0];
  return before.model !== now.model || kind(before) !== kind(now);
}
