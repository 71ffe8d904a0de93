import { describe, expect, it } from 'vitest';
import {
  continueAsNewVersioning,
  handsOver,
  isHandedOver,
  RUN_HISTORY_EVENTS,
  runContinueDue,
  runHistoryLimit,
  upgradesOnContinue,
  visitGoesOn,
} from '../../src/runtime/continuation.js';

describe('when a run continues as new', () => {
  it('goes on past RUN_HISTORY_EVENTS events, or sooner when the options shorten it', () => {
    expect(runHistoryLimit({})).toBe(RUN_HISTORY_EVENTS);
    expect(runHistoryLimit({ runHistoryEvents: 60 })).toBe(60);
    // A limit that is not a positive whole number is the default.
    expect(runHistoryLimit({ runHistoryEvents: 0 })).toBe(RUN_HISTORY_EVENTS);
    expect(runHistoryLimit({ runHistoryEvents: 1.5 })).toBe(RUN_HISTORY_EVENTS);
    expect(runContinueDue({ length: RUN_HISTORY_EVENTS - 1, suggested: false }, {})).toBe(false);
    expect(runContinueDue({ length: RUN_HISTORY_EVENTS, suggested: false }, {})).toBe(true);
    expect(runContinueDue({ length: 59, suggested: false }, { runHistoryEvents: 60 })).toBe(false);
    expect(runContinueDue({ length: 60, suggested: false }, { runHistoryEvents: 60 })).toBe(true);
  });

  it('goes on when Temporal suggests it, however short its history', () => {
    expect(runContinueDue({ length: 10, suggested: true }, {})).toBe(true);
  });

  it('tells a hand-over from a visit outcome', () => {
    expect(isHandedOver({ handedOver: { stage: 'main' } })).toBe(true);
    expect(isHandedOver({ end: 'completed' })).toBe(false);
    expect(isHandedOver(undefined)).toBe(false);
  });
});

describe('the Worker Deployment version a run continues on (docs/reference/operating.md#safe-deploys)', () => {
  it('is the current one for a run started by a person or a schedule, its own for a sub-agent or a fan-out worker', () => {
    expect(upgradesOnContinue({ task: 'go', options: {} })).toBe(true);
    expect(upgradesOnContinue({ blueprint: 'demo@3', task: 'go' })).toBe(true);
    expect(upgradesOnContinue({ task: 'go', child: { parentRunId: 'r', stage: 's' } })).toBe(false);
    expect(upgradesOnContinue({ shared: { hash: 'h' }, task: 'item' })).toBe(false);
  });

  it('asks Temporal to move the next run only when it upgrades', () => {
    expect(continueAsNewVersioning('upgrade')).toEqual({ initialVersioningBehavior: 'AUTO_UPGRADE' });
    expect(continueAsNewVersioning('stay')).toEqual({});
    expect(continueAsNewVersioning(false)).toEqual({});
  });
});

describe('when a visit goes on as new', () => {
  const clock = { handOverAsked: false, runTurns: 3, turnsPerRun: 4, suggested: false, agentsOpen: false };

  it('goes on when its run asks, at its turn cap, or when Temporal suggests it', () => {
    expect(visitGoesOn(clock)).toBe(false);
    expect(visitGoesOn({ ...clock, handOverAsked: true })).toBe(true);
    expect(visitGoesOn({ ...clock, runTurns: 4 })).toBe(true);
    expect(visitGoesOn({ ...clock, suggested: true })).toBe(true);
  });

  it('never goes on while a sub-agent it started is open', () => {
    expect(visitGoesOn({ ...clock, handOverAsked: true, runTurns: 9, suggested: true, agentsOpen: true })).toBe(false);
  });

  it('hands over when its run asked before the continuation was ready, or while it was made', () => {
    expect(handsOver(true, true, true)).toBe(true);
    // The request came while the visit compacted its log for a continue-as-new of its own.
    expect(handsOver(false, true, true)).toBe(true);
    expect(handsOver(false, false, true)).toBe(false);
  });

  it('replays a visit recorded before as it ran: the request as read before the continuation', () => {
    expect(handsOver(false, true, undefined)).toBe(false);
    expect(handsOver(true, true, false)).toBe(true);
  });
});
