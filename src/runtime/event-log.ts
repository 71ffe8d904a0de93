/**
 * The event log a run's workflow and each of its stage visits keep in their
 * state and answer the `events` query from (docs/reference/events.md). It
 * is derived from what the workflow already does, so it adds no command
 * and no history event: a bounded ring of the last events with the offset
 * of its oldest, and the ranges of offsets a child stage visit holds (the
 * visit starts from the run's next offset, and the run goes on from the
 * visit's last). Across continue-as-new only a bounded tail is carried.
 * Pure and deterministic; bundled into workflow code.
 */
import {
  type AwayRange,
  EVENTS_VERSION,
  type EventsAsk,
  type EventsPage,
  type LogCarry,
  type NewEvent,
  type RunEvent,
} from '../shapes/run-events.js';

/** Events a log keeps at most; older ones are dropped (a subscriber that asks for them starts at `base`). */
export const LOG_EVENTS = 1_000;
/** Bytes (of the events' JSON) a log keeps at most. */
export const LOG_BYTES = 256 * 1024;
/** Events a continuation carries at most, and their bytes: the tail a subscriber behind by a little still finds. */
export const CARRY_EVENTS = 100;
export const CARRY_BYTES = 32 * 1024;
/** Events one query answers at most; a subscriber asks again from `next`. */
export const PAGE_EVENTS = 200;

/** The JSON size of an event, which the byte bounds count. */
function sizeOf(event: RunEvent): number {
  return JSON.stringify(event).length;
}

/** The newest events within a count and a byte bound, oldest first. */
function newest(events: readonly RunEvent[], count: number, bytes: number): RunEvent[] {
  const kept: RunEvent[] = [];
  let used = 0;
  for (let i = events.length - 1; i >= 0 && kept.length < count; i--) {
    const size = sizeOf(events[i]!);
    if (used + size > bytes) break;
    used += size;
    kept.unshift(events[i]!);
  }
  return kept;
}

export class EventLog {
  private events: RunEvent[];
  private bytes: number;
  private nextOffset: number;
  private away: AwayRange[];
  /** The workflow wrote its last event, or handed its stream over: nothing more follows from it. */
  private closed = false;

  constructor(carry: LogCarry = { next: 0, tail: [] }) {
    this.events = newest(carry.tail, LOG_EVENTS, LOG_BYTES);
    this.bytes = this.events.reduce((sum, e) => sum + sizeOf(e), 0);
    this.nextOffset = carry.next;
    this.away = [...(carry.away ?? [])];
  }

  /** The offset the next event takes. */
  get next(): number {
    return this.nextOffset;
  }

  /** The oldest offset still kept. */
  get base(): number {
    return this.events[0]?.offset ?? this.nextOffset;
  }

  /**
   * Appends an event at the next offset, dropping the oldest past the bounds. While a live child
   * visit holds the stream, the run writes nothing: the visit has the offsets (its run's going on
   * as new is the visit's `continued` event), and the run's own events follow once it handed back.
   */
  append(event: NewEvent): RunEvent | undefined {
    if (this.away.at(-1)?.to === undefined && this.away.length > 0) return undefined;
    const written = { v: EVENTS_VERSION, offset: this.nextOffset, ...event } as RunEvent;
    this.nextOffset += 1;
    this.events.push(written);
    this.bytes += sizeOf(written);
    while (this.events.length > LOG_EVENTS || (this.bytes > LOG_BYTES && this.events.length > 1)) {
      this.bytes -= sizeOf(this.events.shift()!);
    }
    const base = this.base;
    this.away = this.away.filter((r) => r.to === undefined || r.to > base);
    return written;
  }

  /** A child stage visit takes the stream from the next offset on: it starts from what this returns. */
  handTo(workflowId: string): LogCarry {
    const open = this.away.at(-1);
    if (!open || open.to !== undefined || open.workflowId !== workflowId)
      this.away.push({ workflowId, from: this.nextOffset });
    return { next: this.away.at(-1)!.from, tail: [] };
  }

  /** The visit ended at `next` (its next offset): the log goes on from there. */
  takeBack(next: number | undefined): void {
    const open = this.away.at(-1);
    if (!open || open.to !== undefined) return;
    // A visit of an earlier version reports no offset: its range is empty.
    open.to = Math.max(next ?? open.from, open.from);
    this.nextOffset = Math.max(this.nextOffset, open.to);
  }

  /** Nothing more will follow from this workflow. */
  close(): void {
    this.closed = true;
  }

  /** The workflow ends and its run goes on from its next offset, which this returns. */
  handBack(): number {
    this.close();
    return this.nextOffset;
  }

  /** The `events` query's answer. */
  page(ask: EventsAsk | undefined): EventsPage {
    const base = this.base;
    const from = Math.max(typeof ask?.from === 'number' && Number.isInteger(ask.from) ? ask.from : base, base);
    const held = this.away.find((r) => from >= r.from && (r.to === undefined || from < r.to));
    // A run that ended while its visit held the stream (it failed, or was cancelled) has nothing more to say there.
    if (held?.to === undefined && held && this.closed)
      return { v: EVENTS_VERSION, events: [], next: from, base, done: true };
    if (held)
      return {
        v: EVENTS_VERSION,
        events: [],
        next: from,
        base,
        follow: { workflowId: held.workflowId, from },
        done: false,
      };
    const stop = this.away.find((r) => r.from > from)?.from ?? Number.POSITIVE_INFINITY;
    const events = this.events.filter((e) => e.offset >= from && e.offset < stop).slice(0, PAGE_EVENTS);
    const next = events.length > 0 ? events.at(-1)!.offset + 1 : Math.min(from, this.nextOffset);
    const ahead = this.away.find((r) => next >= r.from && (r.to === undefined || next < r.to));
    return {
      v: EVENTS_VERSION,
      events,
      next,
      base,
      ...(ahead ? { follow: { workflowId: ahead.workflowId, from: next } } : {}),
      done: this.closed && !ahead && next >= this.nextOffset,
    };
  }

  /** What a continuation carries: the bounded tail, the next offset and the ranges that still matter; nothing more follows here. */
  carry(): LogCarry {
    this.close();
    const tail = newest(this.events, CARRY_EVENTS, CARRY_BYTES);
    const base = tail[0]?.offset ?? this.nextOffset;
    const away = this.away.filter((r) => r.to === undefined || r.to > base);
    return { next: this.nextOffset, tail, ...(away.length > 0 ? { away } : {}) };
  }
}
