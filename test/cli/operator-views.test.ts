/**
 * What `lev ps` and `lev show` print for a run, without a server: the
 * table's columns, unknown values, the cost format and the show report
 * (docs/reference/operators.md#lev-ps, docs/reference/operators.md#lev-show).
 */
import { describe, expect, it, vi } from 'vitest';
import { printResult } from '../../src/cli/follow-terminal.js';
import { formatCost, formatRuns } from '../../src/cli/ps-action.js';
import { formatRun } from '../../src/cli/show-action.js';
import { emptyUsage } from '../../src/runtime/types.js';
import type { RunRow, RunView } from '../../src/worker/runs.js';
import { lev } from './lev-in-process.js';

const row: RunRow = {
  runId: 'demo-20261202T010000-ab12cd34',
  title: null,
  blueprint: 'demo',
  stage: 'investigate',
  status: 'running',
  executionStatus: 'RUNNING',
  turns: 4,
  tokens: 12_345,
  costUsd: 0.01234,
  startedAt: '2026-12-02T01:00:00.000Z',
  closedAt: null,
  ageSeconds: 185,
  live: true,
  waiting: null,
};

describe('lev ps table', () => {
  it('prints one header and one line per run, counts right-aligned', () => {
    const orphan: RunRow = {
      ...row,
      runId: 'x',
      blueprint: null,
      turns: null,
      tokens: null,
      costUsd: null,
      live: false,
      ageSeconds: 7200,
    };
    const lines = formatRuns([row, orphan]).split('\n');
    expect(lines[0]).toMatch(/^RUN ID\s+BLUEPRINT\s+STAGE\s+STATUS\s+TURNS\s+TOKENS\s+COST\s+AGE$/);
    expect(lines[1]).toMatch(
      /^demo-20261202T010000-ab12cd34\s+demo\s+investigate\s+running\s+4\s+12345\s+\$0\.01\s+3m$/,
    );
    // What nobody could tell prints as a dash, in the same columns.
    expect(lines[2]).toMatch(/^x\s+-\s+investigate\s+running\s+-\s+-\s+-\s+2h$/);
    expect(lines[1]?.indexOf('running')).toBe(lines[2]?.indexOf('running'));
  });

  it('shows a TITLE column only when a listed run has a title (docs/reference/cli.md#run-titles)', () => {
    const titled: RunRow = { ...row, runId: 'y', title: 'Retry backoff audit' };
    const lines = formatRuns([titled, row]).split('\n');
    expect(lines[0]).toMatch(/^RUN ID\s+TITLE\s+BLUEPRINT\s+STAGE\s/);
    expect(lines[1]).toMatch(/^y\s+Retry backoff audit\s+demo\s+investigate\s/);
    // An untitled run leaves the cell empty, in the same columns.
    expect(lines[2]).toMatch(/^demo-20261202T010000-ab12cd34\s+demo\s+investigate\s/);
    expect(lines[1]?.indexOf('demo ')).toBe(lines[2]?.indexOf('demo '));
    expect(formatRuns([row]).split('\n')[0]).not.toContain('TITLE');
  });

  it('says what a waiting run waits for (docs/reference/long-runs.md#tool_worker_patience)', () => {
    const waiting: RunRow = { ...row, status: 'waiting', waiting: 'tool-worker-missing' };
    expect(formatRuns([waiting]).split('\n')[1]).toMatch(/\sinvestigate\s+waiting \(tool-worker-missing\)\s+4\s/);
  });

  it('says which provider a run waiting for none of its people waits for', () => {
    const waiting: RunRow = {
      ...row,
      status: 'waiting',
      waiting: 'provider-unavailable',
      reason: 'provider-unavailable openai',
    };
    const lines = formatRuns([waiting]).split('\n');
    expect(lines[1]).toMatch(/\sinvestigate\s+waiting \(provider-unavailable openai\)\s+4\s/);
  });

  it('prints costs as the current details do, four decimals below a cent', () => {
    expect([formatCost(null), formatCost(0), formatCost(0.00042), formatCost(12.4)]).toEqual([
      '-',
      '$0.00',
      '$0.0004',
      '$12.40',
    ]);
  });
});

describe('lev show report', () => {
  const view: RunView = {
    ...row,
    task: 'Find the root cause',
    stages: ['investigate'],
    regions: [{ name: 'task', kind: 'pinned', tokens: 19, budget: 800, entries: 1 }],
    window: { max: 16000, used: 19, gap: 0 },
    gatesForced: [],
    gates: { attempts: 1, blocked: 1 },
    recentCalls: [{ tool: 'read_file', subject: 'read_file logs/part1.log', ok: true }],
    asks: [],
    paused: false,
    heldMessages: 0,
    rejected: null,
    taskFailures: [],
    usage: { calls: 4, promptTokens: 12_000, completionTokens: 345, cacheReadTokens: 0, cacheWriteTokens: 0 },
    waitingFor: [],
    taskQueue: 'leviath',
    stageWorkflowId: 'demo-20261202T010000-ab12cd34.1.investigate',
    error: null,
    output: null,
    forkedFrom: null,
    forks: [],
  };

  it('says what a live run is doing, its usage and its regions', () => {
    const text = formatRun(view);
    expect(text).toContain('Status:   running (Temporal RUNNING), started 3m ago');
    expect(text).toContain('Stages:   investigate (now)');
    expect(text).toContain('Waiting:  nothing; it is working');
    expect(text).toContain('4 model calls, 12000 prompt + 345 completion tokens');
    expect(text).toContain('cost $0.01');
    expect(text).toContain('Gates:    1 completion attempt in this visit, 1 blocked; none forced');
    expect(text).toContain('Calls:    read_file logs/part1.log ✓');
    expect(text).toMatch(/task\s+pinned\s+█?░+\s+19 \/ 800/);
  });

  it('names what an orphaned run waits for and shows a finished run with its output', () => {
    const orphan = formatRun({
      ...view,
      live: false,
      costUsd: null,
      waitingFor: [{ kind: 'worker', detail: 'a worker on task queue "leviath"' }],
    });
    expect(orphan).toContain('no worker answered');
    expect(orphan).toContain('Waiting:  a worker on task queue "leviath"');
    expect(orphan).toContain('cost unknown');
    const done = formatRun({
      ...view,
      status: 'completed',
      executionStatus: 'COMPLETED',
      live: false,
      stages: ['investigate', 'report'],
      output: { format: 'text', text: 'The pool ran dry.' },
    });
    expect(done).toContain('Stages:   investigate → report\n');
    expect(done).not.toContain('Waiting:');
    expect(done).toContain('Output (text):\nThe pool ran dry.');
  });

  it('shows where a fork was forked from, and the forks of a run', () => {
    const fork = formatRun({
      ...view,
      forkedFrom: { runId: 'demo-1', turn: 2, stage: 'build', model: 'openai:gpt-4.1' },
    });
    expect(fork).toContain('Fork of:  demo-1, after turn 2 of stage "build", with model openai:gpt-4.1');
    const forked = formatRun({
      ...view,
      forks: [
        { runId: 'demo-fork-a', turn: 3, stage: null, model: null, status: 'completed' },
        { runId: 'demo-fork-b', turn: 1, stage: 'build', model: null, status: 'running' },
      ],
    });
    expect(forked).toContain(
      'Forks:    demo-fork-a (after turn 3, completed), demo-fork-b (after turn 1 of stage "build", running)',
    );
    expect(formatRun(view)).not.toMatch(/Fork/);
  });

  it('says when the workflow task of the run or a visit keeps failing, instead of blaming a missing worker', () => {
    const message = "Cannot read properties of undefined (reading 'kind')";
    const wedged = formatRun({
      ...view,
      live: false,
      taskFailures: [{ workflowId: `${view.runId}.1.investigate`, attempt: 12, message }],
    });
    expect(wedged).toContain('started 3m ago; its workflow task keeps failing');
    expect(wedged).not.toContain('no worker answered');
    expect(wedged).toContain(`Failing:  workflow task failing in ${view.runId}.1.investigate (attempt 12): ${message}`);
  });

  it('says how many malformed signals the run dropped, and the last (docs/reference/operators.md#rejected-messages)', () => {
    const line = '[bad-signal] `operator` signal dropped: the request should be an object; it is a string';
    const text = formatRun({ ...view, rejected: { count: 2, recent: ['`stage-report` signal dropped: …', line] } });
    expect(text).toContain(`Dropped:  2 malformed signals; the last: ${line}`);
    expect(formatRun(view)).not.toContain('Dropped');
  });
});

describe('the end of lev run', () => {
  it('says how many messages the run ended holding', () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      printResult({
        runId: 'held-1',
        status: 'completed',
        output: 'Report written.',
        undeliveredMessages: 2,
        regions: [],
        gatesForced: [],
        usage: { ...emptyUsage(), perStage: {} },
        stages: ['main', 'report'],
        diagnostics: [],
      });
    } finally {
      write.mockRestore();
    }
    expect(out.join('')).toContain(
      'Messages: 2 messages were never delivered: no later stage accepts messages (`accepts_messages = false`); send them while a stage that accepts messages runs.\n',
    );
  });
});

describe('lev cancel --grace', () => {
  it('takes a number of seconds; anything else is a usage error before any server is asked', async () => {
    for (const grace of ['soon', '-1', '']) {
      const out = await lev(['cancel', 'some-run', '--grace', grace, '--address', '127.0.0.1:1']);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('expected a number of seconds of at least 0, such as 10 or 0.5.');
    }
  });
});
