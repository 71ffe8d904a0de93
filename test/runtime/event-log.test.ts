import { describe, expect, it } from 'vitest';
import { CARRY_EVENTS, EventLog, LOG_EVENTS, PAGE_EVENTS } from '../../src/runtime/event-log.js';
import type { NewEvent } from '../../src/shapes/run-events.js';

const turn = (n: number): NewEvent => ({ kind: 'turn-started', time: n, stage: 'plan', turn: n });

describe('EventLog', () => {
  it('gives events consecutive offsets and answers a page from an offset', () => {
    const log = new EventLog();
    for (let i = 0; i < 5; i++) log.append(turn(i));
    const page = log.page({ from: 2 });
    expect(page.events.map((e) => e.offset)).toEqual([2, 3, 4]);
    expect(page).toMatchObject({ v: 1, next: 5, base: 0, done: false });
    expect(page.events[0]).toMatchObject({ v: 1, kind: 'turn-started', turn: 2 });
    expect(log.page({ from: 5 }).events).toEqual([]);
  });

  it('answers from the oldest kept when asked for nothing or for dropped offsets', () => {
    const log = new EventLog();
    for (let i = 0; i < LOG_EVENTS + 10; i++) log.append(turn(i));
    expect(log.base).toBe(10);
    expect(log.page({ from: 3 }).events[0]!.offset).toBe(10);
    expect(log.page(undefined).events[0]!.offset).toBe(10);
    expect(log.page({ from: 10 }).events).toHaveLength(PAGE_EVENTS);
  });

  it('keeps within its byte bound', () => {
    const log = new EventLog();
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 100; i++)
      log.append({ kind: 'gate', time: i, stage: 's', gate: 'g', passed: false, detail: big });
    const kept = log.page({ from: 0 }).events;
    expect(kept.length).toBeLessThan(30);
    expect(kept.at(-1)!.offset).toBe(99);
  });

  it('hands a range of offsets to a child visit, points a subscriber there, and goes on from its last', () => {
    const run = new EventLog();
    run.append(turn(0));
    const start = run.handTo('run-1/visit-1');
    expect(start).toEqual({ next: 1, tail: [] });
    expect(run.page({ from: 0 })).toMatchObject({ next: 1, follow: { workflowId: 'run-1/visit-1', from: 1 } });
    expect(run.page({ from: 1 })).toMatchObject({ events: [], follow: { workflowId: 'run-1/visit-1', from: 1 } });
    // Asked again for the same visit (it handed over and starts again): the same range.
    expect(run.handTo('run-1/visit-1')).toEqual({ next: 1, tail: [] });
    const visit = new EventLog(start);
    visit.append(turn(1));
    visit.append(turn(2));
    run.takeBack(visit.next);
    run.append({ kind: 'run-ended', time: 9, status: 'completed' });
    run.close();
    expect(run.page({ from: 2 })).toMatchObject({ follow: { workflowId: 'run-1/visit-1', from: 2 } });
    expect(run.page({ from: 3 })).toMatchObject({ events: [{ offset: 3, kind: 'run-ended' }], next: 4, done: true });
  });

  it('writes nothing of its own while a live visit holds the stream', () => {
    const run = new EventLog();
    run.handTo('v');
    expect(run.append(turn(0))).toBeUndefined();
    expect(run.next).toBe(0);
    run.takeBack(2);
    expect(run.append(turn(1))?.offset).toBe(2);
  });

  it('says done, and no longer points at the visit, once it ended while the visit held the stream', () => {
    const run = new EventLog();
    run.handTo('v');
    run.close();
    expect(run.page({ from: 0 })).toEqual({ v: 1, events: [], next: 0, base: 0, done: true });
  });

  it('says done only once it is closed and the subscriber has read to its end', () => {
    const log = new EventLog();
    log.append(turn(0));
    log.close();
    expect(log.page({ from: 0 }).done).toBe(true);
    expect(log.page({ from: 1 }).done).toBe(true);
  });

  it('carries a bounded tail and its offsets across continue-as-new', () => {
    const log = new EventLog();
    log.handTo('v');
    log.takeBack(3);
    for (let i = 0; i < CARRY_EVENTS + 50; i++) log.append(turn(i));
    const carry = log.carry();
    expect(carry.tail).toHaveLength(CARRY_EVENTS);
    expect(carry.next).toBe(3 + CARRY_EVENTS + 50);
    // The visit's range is older than the tail, so it is not carried.
    expect(carry.away).toBeUndefined();
    const next = new EventLog(carry);
    next.append(turn(999));
    expect(next.page({ from: carry.next }).events.map((e) => e.offset)).toEqual([carry.next]);
    expect(next.base).toBe(carry.tail[0]!.offset);
  });

  it('carries an open range, so a visit live across the run going on as new is still followed', () => {
    const log = new EventLog();
    log.handTo('v');
    const next = new EventLog(log.carry());
    expect(next.page({ from: 0 })).toMatchObject({ follow: { workflowId: 'v', from: 0 } });
  });
});
