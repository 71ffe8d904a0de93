/** The spec and overlap of `lev schedule create` (docs/reference/cluster-runs.md#schedules). */
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { OVERLAP_POLICIES, parseEvery, scheduleSpec } from '../../src/cli/schedule-action.js';
import { isLevError } from '../../src/errors.js';

function code(work: () => unknown): string {
  try {
    work();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a coded error');
}

describe('lev schedule create', () => {
  it('runs --every a whole number of s, m, h, d or w', () => {
    expect(parseEvery('90s')).toBe(90_000);
    expect(parseEvery('1d')).toBe(86_400_000);
    expect(scheduleSpec({ every: '15m' })).toEqual({ intervals: [{ every: 900_000 }] });
    for (const bad of ['1.5h', '0s', 'daily', '10'])
      expect(
        code(() => parseEvery(bad)),
        bad,
      ).toBe('schedule-spec-bad');
  });

  it('takes a five-field cron expression, and exactly one of the two', () => {
    expect(scheduleSpec({ cron: ' 0 3 * * * ' })).toEqual({ cronExpressions: ['0 3 * * *'] });
    expect(code(() => scheduleSpec({ cron: '0 3' }))).toBe('schedule-spec-bad');
    expect(code(() => scheduleSpec({}))).toBe('schedule-spec-bad');
    expect(code(() => scheduleSpec({ every: '1d', cron: '0 3 * * *' }))).toBe('schedule-spec-bad');
  });

  it('maps --overlap to the Temporal policies the UI shows', () => {
    expect(OVERLAP_POLICIES).toEqual({
      skip: ScheduleOverlapPolicy.SKIP,
      buffer: ScheduleOverlapPolicy.BUFFER_ONE,
      cancel: ScheduleOverlapPolicy.CANCEL_OTHER,
    });
  });
});
