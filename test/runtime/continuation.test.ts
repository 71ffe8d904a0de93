import { describe, expect, it } from 'vitest';
import {
  continueAsNewVersioning,
  isHandedOver,
  RUN_HISTORY_EVENTS,
  runContinueDue,
  runHistoryLimit,
  upgradesOnContinue,
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
