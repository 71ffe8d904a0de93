/**
 * How a run waits for its workdir's tool worker
 * (docs/reference/long-runs.md#tool_worker_patience): the key, the waits of
 * each attempt, what a look at the queue's pollers decides, and the
 * sentence a run that gave up fails with.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptsBefore,
  checkToolWorker,
  DEFAULT_TOOL_WORKER_PATIENCE_SECS,
  POLLER_FRESH_MS,
  TOOL_PROBE_MAX_MS,
  TOOL_PROBE_MS,
  toolStartTimeoutMs,
  toolWorkerMissingText,
  toolWorkerPatienceMs,
} from '../../src/runtime/tool-patience.js';
import { loadToml } from '../blueprint/helpers.js';

const HOUR = 3_600_000;

describe('[run] tool_worker_patience', () => {
  it('is an hour unless the blueprint says otherwise', () => {
    expect(DEFAULT_TOOL_WORKER_PATIENCE_SECS).toBe(3600);
    expect(toolWorkerPatienceMs(loadToml('[agent]\nname = "a"\n[stages.main]\n').blueprint!)).toBe(HOUR);
    const set = loadToml('[run]\ntool_worker_patience = "2h30m"\n').blueprint!;
    expect(set.run?.toolWorkerPatienceSecs).toBe(9000);
    expect(toolWorkerPatienceMs(set)).toBe(9_000_000);
    // A blueprint without the key freezes as before, so its hash does not change.
    expect(loadToml('[run]\nask_timeout = "1h"\n').blueprint!.run).toEqual({ askTimeoutSecs: 3600 });
  });

  it('is a duration, refused by lev validate otherwise', () => {
    const bad = loadToml('[run]\ntool_worker_patience = "an hour"\n');
    expect(bad.diagnostics.map((d) => [d.code, d.path])).toEqual([['bad-duration', 'run.tool_worker_patience']]);
    expect(bad.diagnostics[0]?.message).toContain('tool_worker_patience = "an hour" is not a duration');
  });
});

describe('the wait of one attempt', () => {
  it('is the probe interval at first, shorter only for a shorter patience', () => {
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 0 })).toBe(TOOL_PROBE_MS);
    expect(toolStartTimeoutMs({ patienceMs: 5_000, waitedMs: 0 })).toBe(5_000);
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 0 }, { toolProbeMs: 2_000 })).toBe(2_000);
  });

  it('grows with the wait so far, up to ten minutes, and never runs past the patience', () => {
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 4 * 60_000 })).toBe(2 * 60_000);
    expect(toolStartTimeoutMs({ patienceMs: 3 * 24 * HOUR, waitedMs: 5 * HOUR })).toBe(TOOL_PROBE_MAX_MS);
    // A busy tool worker is waited for as long as it takes; a missing one until the patience ends.
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 2 * HOUR })).toBe(TOOL_PROBE_MAX_MS);
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 2 * HOUR, absentMs: HOUR - 7_000 })).toBe(7_000);
    expect(toolStartTimeoutMs({ patienceMs: HOUR, waitedMs: 2 * HOUR, absentMs: HOUR + 1 })).toBe(1_000);
  });

  it('asks few times over a patience of days, and every wait is at least a second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 30 * 24 * HOUR }),
        fc.integer({ min: 1, max: 60_000 }),
        (patience, probe) => {
          let waited = 0;
          let asks = 0;
          let shortest = Number.POSITIVE_INFINITY;
          while (waited < patience) {
            const wait = toolStartTimeoutMs(
              { patienceMs: patience, waitedMs: waited, absentMs: waited },
              { toolProbeMs: probe },
            );
            shortest = Math.min(shortest, wait);
            waited += wait;
            asks++;
          }
          // Ten-minute steps at most, after a doubling start: a month is a few thousand asks, not hundreds of thousands.
          return shortest >= 1_000 && asks <= Math.ceil(patience / TOOL_PROBE_MAX_MS) + 40;
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a look at the pollers of the tool queue', () => {
  const at = { taskQueue: 'leviath-workdir-w-0123456789ab', workdir: '/srv/w', since: 1_000, patienceMs: HOUR };

  it('finds the tool worker busy when a poller was seen lately: no wait to show', () => {
    expect(checkToolWorker({ ...at, now: 60_000, pollerAgesMs: [POLLER_FRESH_MS - 1] })).toEqual({ kind: 'present' });
    expect(checkToolWorker({ ...at, now: 2 * HOUR, pollerAgesMs: [5_000, 300_000] })).toEqual({ kind: 'present' });
  });

  it('finds it missing when none polls, or only a dead one the server still lists', () => {
    const absence = { taskQueue: at.taskQueue, workdir: '/srv/w', since: 1_000, failsAt: 1_000 + HOUR };
    expect(checkToolWorker({ ...at, now: 31_000, pollerAgesMs: [] })).toEqual({ kind: 'missing', absence });
    expect(checkToolWorker({ ...at, now: 31_000, pollerAgesMs: [POLLER_FRESH_MS] })).toEqual({
      kind: 'missing',
      absence,
    });
  });

  it('counts a poller as live for the run option pollerFreshMs when set, two minutes when not', () => {
    expect(checkToolWorker({ ...at, now: 31_000, pollerAgesMs: [1_500] }, { pollerFreshMs: 1_000 })).toMatchObject({
      kind: 'missing',
    });
    expect(checkToolWorker({ ...at, now: 31_000, pollerAgesMs: [500] }, { pollerFreshMs: 1_000 })).toEqual({
      kind: 'present',
    });
    expect(checkToolWorker({ ...at, now: 31_000, pollerAgesMs: [1_500] }, {})).toEqual({ kind: 'present' });
  });

  it('gives up once the patience has passed since the first call waited', () => {
    expect(checkToolWorker({ ...at, now: 1_000 + HOUR, pollerAgesMs: [] })).toMatchObject({ kind: 'gone' });
    expect(checkToolWorker({ ...at, now: HOUR, pollerAgesMs: [] })).toMatchObject({ kind: 'missing' });
  });

  it('fails the run with the command that serves the workdir', () => {
    const absence = { taskQueue: at.taskQueue, workdir: '/srv/w', since: 0, failsAt: HOUR };
    expect(toolWorkerMissingText(absence)).toBe(
      "No tool worker took the run's tool calls on task queue leviath-workdir-w-0123456789ab for 1h ([run] tool_worker_patience), so the run stopped; start `lev worker --tools --workdir /srv/w` where the workdir /srv/w is, then start the run again.",
    );
    expect(toolWorkerMissingText({ ...absence, taskQueue: 'leviath-tools-box-1234abcd' })).toContain(
      '`lev worker --tools --workdir /srv/w --task-queue leviath-tools-box-1234abcd`',
    );
  });
});

describe('a call scheduled again after it waited', () => {
  it('counts the attempts an earlier start reached, from its last heartbeat', () => {
    expect(attemptsBefore(undefined, 0)).toBe(0);
    expect(attemptsBefore({ attempt: 2 }, 0)).toBe(2);
    expect(attemptsBefore({ attempt: 1 }, 3)).toBe(3);
    expect(attemptsBefore({ attempt: 'two' }, 1)).toBe(1);
  });
});
