/** What the Web UI shows of a run (docs/reference/operators.md#user-metadata): summary, details, cost. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS } from '../../src/providers/builtin-models.js';
import {
  costLine,
  fillBar,
  forkTurn,
  runDetails,
  stageDetails,
  staticDetails,
  staticSummary,
  utcMinute,
} from '../../src/runtime/details.js';
import { estimateCost } from '../../src/runtime/spend.js';
import { emptyUsage, type Progress } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { utf8Bytes } from '../../src/truncate.js';

const usage = (promptTokens: number, completionTokens: number, cacheReadTokens = 0) => ({
  ...emptyUsage(),
  calls: 1,
  promptTokens,
  completionTokens,
  cacheReadTokens,
});

function progress(over: Partial<Progress> = {}): Progress {
  return {
    runId: 'demo-1',
    status: 'running',
    stage: 'investigate',
    inferences: 6,
    visitTurns: 4,
    regions: [
      { name: 'task', kind: 'pinned', tokens: 120, budget: 1200, entries: 1 },
      { name: 'conversation', kind: 'sliding_window', tokens: 9000, budget: 9000, entries: 12 },
    ],
    window: { max: 32000, used: 9120, gap: 0 },
    gatesForced: [],
    usage: usage(12_345, 890, 1000),
    cost: { usd: null, priced: [], unpriced: ['scripted:demo'] },
    asks: [],
    paused: false,
    heldMessages: 0,
    recentCalls: [
      { tool: 'read_file', subject: 'read_file logs/a.log', ok: true },
      { tool: 'grep', subject: 'grep ERROR', ok: false },
    ],
    gates: { attempts: 1, blocked: 1 },
    ...over,
  };
}

describe('staticSummary', () => {
  it('is the blueprint and the first line of the task, at most 200 bytes', () => {
    expect(staticSummary('demo', 'Find the bug.\nThen fix it.')).toBe('demo: Find the bug.');
    expect(staticSummary('demo', undefined)).toBe('demo');
    // A title stands in for the task (docs/reference/cli.md#run-titles).
    expect(staticSummary('demo', 'Find the bug.', 'Billing outage')).toBe('demo: Billing outage');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (task) => {
        const s = staticSummary('demo', task);
        expect(utf8Bytes(s)).toBeLessThanOrEqual(200);
        expect(s.startsWith('demo')).toBe(true);
      }),
    );
  });
});

describe('fillBar', () => {
  it('is 20 characters, one full block per 5 %', () => {
    expect(fillBar(0, 100)).toBe('░'.repeat(20));
    expect(fillBar(50, 100)).toBe(`${'█'.repeat(10)}${'░'.repeat(10)}`);
    expect(fillBar(250, 100)).toBe('█'.repeat(20));
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (t, b) => {
        expect([...fillBar(t, b)]).toHaveLength(20);
      }),
    );
  });
});

describe('estimateCost', () => {
  it('prices uncached prompt, cache reads and completion at the model table prices', () => {
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per million.
    const cost = estimateCost(
      [{ model: 'anthropic:claude-sonnet-4-5', usage: usage(1_000_000, 100_000, 500_000) }],
      BUILTIN_MODELS,
    );
    expect(cost.usd).toBeCloseTo(0.5 * 3 + 0.5 * 0.3 + 0.1 * 15, 10);
    expect(cost).toMatchObject({ priced: ['anthropic:claude-sonnet-4-5'], unpriced: [] });
  });

  it('says which models it could not price, and is unknown when none could be', () => {
    const none = estimateCost([{ model: 'scripted:demo', usage: usage(100, 10) }], BUILTIN_MODELS);
    expect(none).toEqual({ usd: null, priced: [], unpriced: ['scripted:demo'] });
    expect(costLine(none)).toBe('**Estimated cost**: unknown (no prices for `scripted:demo` in the model table)');
    const part = estimateCost(
      [
        { model: 'openai:gpt-4o-mini', usage: usage(1_000_000, 0) },
        { model: 'ollama:llama3.1', usage: usage(10, 1) },
      ],
      BUILTIN_MODELS,
    );
    expect(costLine(part)).toBe(
      '**Estimated cost**: $0.15 at list prices of `openai:gpt-4o-mini`; `ollama:llama3.1` not priced (no prices in the model table)',
    );
    expect(costLine(estimateCost([], BUILTIN_MODELS))).toBe('**Estimated cost**: $0.00 (no model calls yet)');
  });
});

describe('stageDetails', () => {
  it('shows the turn, the region table with bars, gates, last calls, usage and cost', () => {
    const md = stageDetails(progress());
    expect(md.split('\n')[0]).toBe('**investigate** · turn 4 (run inference 6) · running');
    expect(md).toContain('| Region | Kind | Tokens / budget | Fill | Entries |');
    expect(md).toContain(`| task | pinned | 120 / 1,200 | \`${'█'.repeat(2)}${'░'.repeat(18)}\` | 1 |`);
    expect(md).toContain(`| conversation | sliding_window | 9,000 / 9,000 | \`${'█'.repeat(20)}\` | 12 |`);
    expect(md).toContain('Window: 9,120 / 32,000 tokens');
    expect(md).toContain('**Gates**: 1 completion attempt in this visit, 1 blocked');
    expect(md).toContain('`read_file logs/a.log` ✓ · `grep ERROR` ✗');
    expect(md).toContain(
      '**Usage** (this visit): 1 model call · 12,345 prompt tokens (1,000 cached) · 890 completion tokens',
    );
    expect(md).toContain('**Estimated cost**: unknown (no prices for `scripted:demo` in the model table)');
  });

  it('says what it waits for and which command answers it', () => {
    const md = stageDetails(
      progress({
        status: 'waiting',
        waiting: 'approval',
        asks: [
          {
            kind: 'approval',
            call: 'call_4_0',
            tool: 'shell',
            subject: 'shell rm -rf build',
            since: 0,
            deadline: Date.UTC(2026, 0, 2, 3, 4),
          },
        ],
      }),
    );
    expect(md).toContain(
      '**Waiting for** approval of `shell rm -rf build` (call `call_4_0`, until 2026-01-02 03:04 UTC): `lev approve demo-1 call_4_0`',
    );
    expect(stageDetails(progress({ paused: true, status: 'paused' }))).toContain('`lev resume demo-1` goes on');
  });

  it('says when it waits for the tool worker of its workdir, and when it gives up', () => {
    const toolWorker = {
      taskQueue: 'leviath-workdir-w-0123456789ab',
      workdir: '/srv/w',
      since: Date.UTC(2026, 0, 2, 3, 4),
      failsAt: Date.UTC(2026, 0, 2, 4, 4),
    };
    const md = runDetails(progress({ status: 'waiting', waiting: 'tool-worker-missing', toolWorker }), ['main']);
    expect(md).toContain(
      '**Waiting for** a tool worker (`tool-worker-missing`): none has polled task queue `leviath-workdir-w-0123456789ab` since 2026-01-02 03:04 UTC; start `lev worker --tools --workdir /srv/w` where the workdir is, or the run fails at 2026-01-02 04:04 UTC (`[run] tool_worker_patience`).',
    );
  });

  it("shows a checkpoint's options, the start of its document, lev answer and the Web UI's argument", () => {
    const md = stageDetails(
      progress({
        status: 'waiting',
        waiting: 'checkpoint',
        asks: [
          {
            kind: 'answer',
            call: 'point-plan_approval-0',
            tool: 'interaction_point',
            subject: 'Approve the plan?',
            since: 0,
            deadline: Date.UTC(2026, 0, 2, 3, 4),
            form: 'choice',
            options: ['Approve', 'Abort'],
            document: '## Plan\n1. Add the cache.',
            point: 'plan_approval',
          },
        ],
      }),
    );
    expect(md).toContain(
      '**Waiting for** an answer at checkpoint `plan_approval` (call `point-plan_approval-0`, until 2026-01-02 03:04 UTC): Approve the plan? Options: 1. Approve · 2. Abort. — `lev answer demo-1 point-plan_approval-0 --choice <1-2>`, or the update `answer` with `{"call": "point-plan_approval-0", "choice": 1}`.',
    );
    expect(md).toContain('> ## Plan\n> 1. Add the cache.');
  });

  it("counts a fan-out's workers while they run, and names the search that lists them", () => {
    const md = stageDetails(progress({ workers: { queued: 10, running: 4, done: 11, failed: 1 } }));
    expect(md.split('\n')[1]).toBe(
      '**Workers**: 4 running, 10 queued, 11 done, 1 failed; list them with `LeviathParent = "demo-1"`.',
    );
    expect(stageDetails(progress())).not.toContain('**Workers**');
  });
});

describe('runDetails', () => {
  it('points to the live stage and lists the stages visited', () => {
    const md = runDetails(progress({ stageWorkflowId: 'demo-1.2.investigate', heldMessages: 2 }), ['investigate']);
    expect(md).toContain(
      '**Live stage**: **investigate** in workflow `demo-1.2.investigate`; its details show each turn.',
    );
    expect(md).toContain('**Held messages**: 2');
    expect(md).toContain('**Stages**: investigate');
  });

  it('says how many signals the run and the visit dropped for their shape, and the last (docs/reference/operators.md#rejected-messages)', () => {
    const rejected = {
      count: 2,
      recent: ['a', '[bad-signal] `stage-report` signal dropped: the report should be an object; it is a string'],
    };
    const line =
      "**Dropped messages**: 2; the last: [bad-signal] 'stage-report' signal dropped: the report should be an object; it is a string";
    expect(runDetails(progress({ rejected }), []).split('\n')).toContain(line);
    expect(stageDetails(progress({ rejected })).split('\n')).toContain(line);
    expect(runDetails(progress(), [])).not.toContain('Dropped');
  });
});

describe('utcMinute', () => {
  it('agrees with Date for any time from 1970 to 2200', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7_258_118_400_000 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(utcMinute(ms)).toBe(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`);
      }),
    );
  });
});

describe("a fork's static details", () => {
  const bp = { agent: { name: 'demo' }, stages: [{ name: 'build', model: 'scripted:x' }] } as unknown as Blueprint;
  const base = { blueprint: bp, workdir: '/w', unattended: true, askTimeoutSecs: 60 };

  it('say which run it was forked from and after which turn (docs/reference/cluster-runs.md#fork)', () => {
    expect(forkTurn({ turn: 4 })).toBe('turn 4');
    expect(forkTurn({ turn: 1, stage: 'build' })).toBe('turn 1 of stage "build"');
    const details = staticDetails({ ...base, forkedFrom: { runId: 'demo-1', turn: 1, stage: 'build' } });
    expect(details).toContain('**Fork** of `demo-1` after turn 1 of stage "build"');
    expect(staticDetails(base)).not.toContain('**Fork**');
  });
});
