/**
 * The run's side of the people in the loop (docs/reference/operators.md):
 * the updates and the `message` signal, validated against what the live
 * visit last reported; forwarding each accepted update to the live visit by
 * workflow id (so it reaches the visit after any number of continue-as-new)
 * and returning the visit's answer; holding messages and the pause between
 * visits; and `LeviathStatus`, written only when it changes.
 */

import type { UpdateDefinition } from '@temporalio/common';
import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  applyBetweenVisits,
  checkMessageText,
  checkStageReport,
  type ForwardedRequest,
  isRefusal,
  type LeviathStatus,
  NO_WAITS,
  noteRejected,
  OPERATOR_UPDATES,
  type OperatorCarry,
  type OperatorReply,
  type OperatorRequest,
  type OperatorUpdate,
  type OperatorView,
  type Progress,
  parseOperatorRequest,
  type RejectedMessages,
  type ReportOrder,
  refusalText,
  rejectedLine,
  rejectedMetric,
  reportIsStale,
  runStatus,
  STATUS_KEY,
  type StageOutcome,
  type StageReport,
  type StageWaits,
  type ToolWorkerAbsence,
  type VisitCounters,
  validateOperatorRequest,
  type WaitingKind,
  waitChange,
  waitingKind,
} from '../../src/runtime/index.js';
import { operatorSignal, operatorUpdates, runMessageSignal, stageReportSignal } from '../../src/runtime/messages.js';
import { emit } from '../meter.js';

/**
 * A visit that runs inside the run's own workflow (a fan-out worker's): the
 * run hands it each update and asks it for its progress directly.
 */
export interface VisitHere {
  deliver(forwarded: ForwardedRequest): Promise<void>;
  progress(): Progress;
}

export class RunOperators {
  /** What waits for the next visit: messages nobody has read, and the pause. */
  private carry: Required<OperatorCarry> = { inbox: [], held: [], paused: false };
  /** What the live visit last reported. */
  private waits: StageWaits = NO_WAITS;
  /** Workflow id of the live visit. */
  private live: string | undefined;
  /** The live visit, when it runs inside the run. */
  private here: VisitHere | undefined;
  /** The live visit's counters as of its last report. */
  private reported: VisitCounters | undefined;
  /** Where the last report taken stands among its visit's reports. */
  private order: ReportOrder | undefined;
  /** Forwarded updates waiting for the visit's answer, by id. */
  private readonly acks = new Map<number, OperatorReply | undefined>();
  private nextId = 1;
  private stuck = false;
  /** The run's own calls (its seeds) wait for the workdir's tool worker, which is away. */
  private toolWorker: ToolWorkerAbsence | undefined;
  /** What the run waits for now, as last counted (`leviath_waits_*`). */
  private waiting: WaitingKind | undefined;
  status: LeviathStatus = 'running';
  /** The run has decided how it ends: every update is refused from here on. */
  ended = false;
  /** The region set a cancelled visit reported. */
  cancelledOutcome: StageOutcome | undefined;
  /** Signals dropped for their shape (docs/reference/operators.md#rejected-messages). */
  private rejected: RejectedMessages | undefined;

  constructor(private readonly changed: () => void) {}

  install(): void {
    for (const update of OPERATOR_UPDATES) this.onUpdate(operatorUpdates[update], update);
    // A signal has nobody to answer: a malformed one is dropped before it touches state, and shown.
    setHandler(runMessageSignal, async (arg: unknown) => {
      const text = checkMessageText(arg);
      if (!text.ok) return this.reject(runMessageSignal.name, text.problem);
      const op = validateOperatorRequest('message', text.value, this.view());
      if (isRefusal(op)) log.warn(`message signal dropped: ${refusalText(op)}`);
      else await this.forward(op);
    });
    setHandler(stageReportSignal, (arg: unknown) => {
      const report = checkStageReport(arg);
      if (report.ok) this.report(report.value);
      else this.reject(stageReportSignal.name, report.problem);
    });
  }

  /** A signal dropped for its shape: in the worker's log, the metric and the run's details. */
  private reject(message: string, problem: string): void {
    const line = rejectedLine(message, problem);
    log.warn(line);
    emit([rejectedMetric('run', message)]);
    this.rejected = noteRejected(this.rejected, line);
    this.changed();
  }

  private onUpdate(def: UpdateDefinition<unknown, [unknown?]>, update: OperatorUpdate): void {
    setHandler(def, (arg?: unknown) => this.handle(update, arg), {
      validator: (arg?: unknown) => {
        const op = validateOperatorRequest(update, arg, this.view());
        if (isRefusal(op)) throw ApplicationFailure.nonRetryable(refusalText(op), op.code);
      },
    });
  }

  private async handle(update: OperatorUpdate, arg: unknown): Promise<unknown> {
    // The validator accepted the argument, so it reads as an operation.
    const op = parseOperatorRequest(update, arg) as OperatorRequest;
    const reply = await this.forward(op);
    if (!reply.ok) throw ApplicationFailure.nonRetryable(refusalText(reply.refusal), reply.refusal.code);
    return reply.value;
  }

  view(): OperatorView {
    return {
      ended: this.ended,
      paused: this.live ? this.waits.paused : this.carry.paused,
      asks: this.live ? this.waits.asks : [],
    };
  }

  /** Sends the operation to the live visit and returns its answer; between visits the run holds it. */
  private async forward(op: OperatorRequest): Promise<OperatorReply> {
    const target = this.live;
    if (target === undefined) return this.betweenVisits(op);
    const here = this.here;
    const id = this.nextId++;
    this.acks.set(id, undefined);
    try {
      if (here) await here.deliver({ id, op });
      else await getExternalWorkflowHandle(target).signal(operatorSignal, { id, op });
    } catch (err) {
      this.acks.delete(id);
      if (isCancellation(err)) throw err;
      // The visit closed before the signal reached it; the next visit gets the operation.
      return this.betweenVisits(op);
    }
    await condition(() => this.acks.get(id) !== undefined || this.live !== target);
    const reply = this.acks.get(id);
    this.acks.delete(id);
    // The visit took the operation and ended before it answered: what it holds came back with it.
    return reply ?? applyBetweenVisits(this.carry, op).reply;
  }

  private betweenVisits(op: OperatorRequest): OperatorReply {
    const { carry, reply } = applyBetweenVisits(this.carry, op);
    this.carry = carry;
    this.refresh();
    return reply;
  }

  /** The live visit's counters as its last report had them. */
  liveCounters(): VisitCounters | undefined {
    return this.reported;
  }

  /** The live visit's own progress, when it runs inside the run. */
  hostedProgress(): Progress | undefined {
    return this.here?.progress();
  }

  /** A report of the live visit: an answer to an update, what it waits for, its counters. */
  report(report: StageReport<StageOutcome>): void {
    if (report.kind === 'cancelled') {
      this.cancelledOutcome = report.outcome;
      return;
    }
    if (report.kind === 'ack' && this.acks.has(report.id)) this.acks.set(report.id, report.reply);
    const order = report.counters && report.seq !== undefined ? { at: report.counters.at, seq: report.seq } : undefined;
    // A report its visit sent before one already taken says nothing newer.
    if (reportIsStale(this.order, order)) return;
    if (order) this.order = order;
    // A report that arrives after its visit ended tells nothing the outcome did not.
    if (report.counters && this.live !== undefined) this.reported = report.counters;
    this.waits = report.waits;
    this.refresh();
  }

  /** A visit starts: it takes the held messages and the pause. */
  startVisit(workflowId: string): OperatorCarry {
    const handed = { ...this.carry };
    this.carry = { inbox: [], held: [], paused: false };
    this.waits = { ...NO_WAITS, paused: handed.paused };
    this.live = workflowId;
    this.reported = undefined;
    this.order = undefined;
    this.refresh();
    return handed;
  }

  /** The live visit runs inside the run: updates go to it as calls, and its progress is asked of it. */
  hostVisit(here: VisitHere): void {
    this.here = here;
  }

  /** A visit ended: what it did not write waits for the next one, before what arrived in between. */
  endVisit(left: OperatorCarry | undefined): void {
    this.live = undefined;
    this.here = undefined;
    this.reported = undefined;
    this.carry = {
      inbox: [],
      held: [...(left?.inbox ?? []), ...(left?.held ?? []), ...this.carry.held],
      paused: left?.paused ?? this.waits.paused,
    };
    this.waits = NO_WAITS;
    this.refresh();
  }

  /**
   * What the run hands its next run when it continues as new: the held messages, the pause,
   * `stuck`. Its wait ends here; the next run counts it again when it restores the pause.
   */
  handOver(): { operators: Required<OperatorCarry>; stuck: boolean } {
    this.countWait(undefined);
    return {
      operators: { inbox: [...this.carry.inbox], held: [...this.carry.held], paused: this.carry.paused },
      stuck: this.stuck,
    };
  }

  /** A run that continued as new takes over what its previous run held. */
  restore(operators: Required<OperatorCarry>, stuck: boolean): void {
    this.carry = { inbox: [...operators.inbox], held: [...operators.held], paused: operators.paused };
    this.stuck = stuck;
    this.refresh();
  }

  /** Messages no visit wrote into a conversation: those a stage that does not accept messages held. */
  undelivered(): number {
    return this.carry.inbox.length + this.carry.held.length;
  }

  /**
   * Between visits, waits while the run is paused: the run's own inference
   * (an edge choice) waits for `resume` as a visit's would.
   */
  async holdWhilePaused(): Promise<void> {
    if (this.live === undefined && this.carry.paused) await condition(() => !this.carry.paused);
  }

  /** The workdir's tool worker is away from the run's own calls, or back (undefined). */
  showToolWorker(absence: ToolWorkerAbsence | undefined): void {
    this.toolWorker = absence;
    this.refresh();
  }

  /** The tool worker the run waits for (docs/reference/long-runs.md#tool_worker_patience): the live visit's, else its own. */
  private absentToolWorker(): ToolWorkerAbsence | undefined {
    return this.live ? this.waits.toolWorker : this.toolWorker;
  }

  /** Whether the last visit ended `stuck`. */
  setStuck(stuck: boolean): void {
    this.stuck = stuck;
    this.refresh();
  }

  /** The run has decided how it ends; the caller writes the final status. */
  finish(status: Extract<LeviathStatus, 'completed' | 'failed' | 'cancelled'>): void {
    this.ended = true;
    this.status = status;
    this.countWait(undefined);
    this.changed();
  }

  /** Counts the run's waits for people by reason (docs/reference/operating.md#leviaths-metrics). */
  private countWait(now: WaitingKind | undefined): void {
    emit(waitChange(this.waiting, now));
    this.waiting = now;
  }

  private refresh(): void {
    if (!this.ended) {
      const view = this.view();
      const waitingReply = this.live ? this.waits.waitingReply : false;
      this.countWait(waitingKind({ asks: view.asks, waitingReply, paused: view.paused }));
      const next = runStatus({
        asks: view.asks,
        waitingReply,
        paused: view.paused,
        stuck: this.stuck,
        toolWorker: this.absentToolWorker(),
        provider: this.live ? this.waits.provider : undefined,
      });
      if (next !== this.status) {
        this.status = next;
        upsertSearchAttributes([{ key: STATUS_KEY, value: next }]);
      }
    }
    this.changed();
  }

  /** The run's part of its progress: status, waits, pause and held messages. */
  progress(): Pick<
    Progress,
    'status' | 'waiting' | 'toolWorker' | 'provider' | 'asks' | 'paused' | 'heldMessages' | 'rejected'
  > {
    const view = this.view();
    const toolWorker = this.absentToolWorker();
    const provider = this.live ? this.waits.provider : undefined;
    const waiting = waitingKind({
      asks: view.asks,
      waitingReply: this.live ? this.waits.waitingReply : false,
      paused: view.paused,
      toolWorker,
      provider,
    });
    return {
      status: this.status,
      ...(waiting ? { waiting } : {}),
      ...(toolWorker ? { toolWorker } : {}),
      ...(provider ? { provider } : {}),
      asks: [...view.asks],
      paused: view.paused,
      heldMessages: this.carry.held.length + (this.live ? this.waits.heldMessages : 0),
      ...(this.rejected ? { rejected: this.rejected } : {}),
    };
  }
}
