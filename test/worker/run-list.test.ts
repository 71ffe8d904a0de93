/**
 * The pure half of `lev ps` / `lev show`: the status a run is shown with,
 * the visibility query a filter becomes, ages and stage paths
 * (docs/reference/operators.md#run-status).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { LEVIATH_STATUSES } from '../../src/runtime/types.js';
import { age, filterStatus, listQuery, RUN_STATUSES, shownStatus, stagePath } from '../../src/worker/run-list.js';

const EXECUTIONS = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'TIMED_OUT'];

describe('shownStatus', () => {
  it('shows an open run by its LeviathStatus', () => {
    expect(shownStatus('RUNNING', 'waiting')).toBe('waiting');
    expect(shownStatus('RUNNING', 'paused')).toBe('paused');
    expect(shownStatus('RUNNING', undefined)).toBe('running');
  });

  it('lets Temporal speak for ends the workflow never saw: a terminated run still marked running', () => {
    expect(shownStatus('TERMINATED', 'running')).toBe('terminated');
    expect(shownStatus('TIMED_OUT', 'waiting')).toBe('timed-out');
    expect(shownStatus('CANCELLED', 'running')).toBe('cancelled');
    // An older run cancelled before its end was recorded failed, its attribute left at running.
    expect(shownStatus('FAILED', 'running')).toBe('failed');
    expect(shownStatus('COMPLETED', 'running')).toBe('completed');
  });

  it('keeps the closed LeviathStatus the run wrote', () => {
    expect(shownStatus('COMPLETED', 'stuck')).toBe('stuck');
    expect(shownStatus('FAILED', 'stuck')).toBe('stuck');
    expect(shownStatus('COMPLETED', 'completed')).toBe('completed');
  });

  it('never shows an open status for a closed run, nor a closed one for an open run', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXECUTIONS), fc.option(fc.constantFrom(...LEVIATH_STATUSES)), (exec, lev) => {
        const shown = shownStatus(exec, lev ?? undefined);
        expect(RUN_STATUSES).toContain(shown);
        expect(['running', 'waiting', 'paused'].includes(shown)).toBe(exec === 'RUNNING');
      }),
    );
  });
});

describe('listQuery', () => {
  it('lists run workflows only, narrowed by blueprint and status', () => {
    expect(listQuery({})).toBe("WorkflowType = 'agentRunWorkflow'");
    expect(listQuery({ blueprint: 'demo', status: 'waiting' })).toBe(
      "WorkflowType = 'agentRunWorkflow' AND LeviathBlueprint = 'demo' AND LeviathStatus = 'waiting' AND ExecutionStatus = 'Running'",
    );
    expect(listQuery({ status: 'terminated' })).toContain("ExecutionStatus = 'Terminated'");
  });

  it('quotes a blueprint name so it cannot widen the query', () => {
    expect(listQuery({ blueprint: "x' OR WorkflowType = 'stageWorkflow" })).toBe(
      "WorkflowType = 'agentRunWorkflow' AND LeviathBlueprint = 'x\\' OR WorkflowType = \\'stageWorkflow'",
    );
  });

  it('refuses a status that is none of the values, naming them', () => {
    let refusal = { code: '', message: '' };
    try {
      filterStatus('done');
    } catch (err) {
      if (isLevError(err)) refusal = { code: err.code, message: err.message };
    }
    expect(refusal.code).toBe('unknown-status');
    expect(refusal.message).toMatch(
      /^--status takes one of running, waiting, paused, .*timed-out; "done" is none of them\.$/,
    );
  });
});

describe('age and stagePath', () => {
  it('rounds down to the largest unit', () => {
    expect([age(5), age(59), age(60), age(3599), age(3600), age(86_400 * 3 + 5)]).toEqual([
      '5s',
      '59s',
      '1m',
      '59m',
      '1h',
      '3d',
    ]);
  });

  it('orders stage visits by their number, not as text', () => {
    const ids = ['r.10.report', 'r.2.investigate', 'r.1.investigate', 'other.1.x', 'r.3.review'];
    expect(stagePath('r', ids)).toEqual(['investigate', 'investigate', 'review', 'report']);
    // A visit handed over across the run's continue-as-new is listed twice under its id, and counted once.
    expect(stagePath('r', ['r.1.main', 'r.2.review', 'r.1.main'])).toEqual(['main', 'review']);
  });

  it('keeps dots inside a stage name', () => {
    expect(stagePath('run.1', ['run.1.1.stage.two'])).toEqual(['stage.two']);
  });
});
