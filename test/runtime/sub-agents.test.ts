/**
 * The pure decisions of sub-agents (docs/reference/sub-agents.md): workflow
 * ids that are safe for any item id, the order and bound of a fan-out's
 * workers, the checks of every agent tool's arguments, and the report.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRunState } from '../../src/context/index.js';
import {
  MAX_FAN_OUT_ITEMS,
  readAgentId,
  readFanOut,
  readItems,
  readSpawn,
  resolveTarget,
  type SpawnContext,
  taskText,
  toolRefusalText,
} from '../../src/runtime/agents/agent-tool-args.js';
import {
  itemShare,
  rangeSection,
  reportCounts,
  reportHeader,
  reportItem,
  sectionHeading,
} from '../../src/runtime/agents/fan-out-report.js';
import {
  boundedWorkflowId,
  childBlueprintOf,
  childLineage,
  childRunId,
  DEFAULT_MAX_CHILD_DEPTH,
  depthOf,
  fitsWorkflowId,
  idSegment,
  MAX_WORKFLOW_ID,
  seedContextTarget,
  shardRunId,
  topLineage,
} from '../../src/runtime/agents/lineage.js';
import { childEnd, FanOutQueue, failedEnd } from '../../src/runtime/agents/queue.js';
import { shardEnd, shardPlan, sumShardCounts, unansweredShard } from '../../src/runtime/agents/shards.js';
import { agentFailedText } from '../../src/runtime/texts.js';
import type { ChildRunResult } from '../../src/runtime/types.js';
import type { Blueprint, StageDef } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

function blueprint(toml: string, files: Record<string, string> = {}): Blueprint {
  const loaded = loadToml(toml, files);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

const BP = blueprint(
  `[agent]
name = "lead"
sub_agents = ["./helper"]
[context.regions]
task = { kind = "pinned", max_tokens = 500 }
[stages.main]
[stages.worker]
allow_as_worker = true
[stages.private]
`,
  { 'helper/agent.toml': '[agent]\nname = "helper"\n' },
);

function spawner(depth = 0, maxDepth = DEFAULT_MAX_CHILD_DEPTH): SpawnContext {
  const ceiling = Array.from({ length: depth }, (_, i) => ({ blueprintHash: `h${i}`, stage: 'main' }));
  return { bp: BP, blueprintHash: 'h0', lineage: { maxDepth, ceiling } };
}

const main = BP.stages.find((s) => s.name === 'main') as StageDef;

function code(r: unknown): string | undefined {
  return typeof r === 'object' && r !== null && 'ok' in r ? (r as unknown as { code: string }).code : undefined;
}

describe('child workflow ids', () => {
  it('keep letters, digits, _ and -, and encode everything else', () => {
    expect(idSegment('file-01_a')).toBe('file-01_a');
    expect(idSegment('src/a.ts')).toBe('src%2Fa%2Ets');
    expect(idSegment('ü')).toBe('%C3%BC');
    expect(idSegment('😀')).toBe('%F0%9F%98%80');
    expect(childRunId('run-1', 'x.1.main')).toBe('run-1/x%2E1%2Emain');
  });

  it('never hold a slash or a dot, and two ids never share a segment', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const sa = idSegment(a);
        expect(sa).toMatch(/^[A-Za-z0-9_%-]*$/);
        expect(decodeURIComponent(sa)).toBe(a);
        if (a !== b) expect(sa).not.toBe(idSegment(b));
      }),
    );
  });
});

// docs/reference/sub-agents.md#ids
describe('workflow ids within the length SQL stores keep', () => {
  const run = 'clustered-20261203T101112-0a1b2c3d';

  it('leave an id of at most 255 characters as it is, the default depth of short item ids included', () => {
    const leaf = childRunId(childRunId(childRunId(run, 'left'), 'a'), 'file-07.ts');
    expect(fitsWorkflowId(leaf)).toBe(true);
    expect(boundedWorkflowId(leaf)).toBe(leaf);
    expect(boundedWorkflowId('x'.repeat(MAX_WORKFLOW_ID))).toBe('x'.repeat(MAX_WORKFLOW_ID));
  });

  it('shorten a longer one to 255 characters: its prefix, ~ and a hash of the whole id', () => {
    // One item id of the 200 characters fan_out accepts already passes the limit under a run id.
    const id = childRunId(run, 'd'.repeat(200).replace(/d{10}/g, 'src/a.ts--'));
    expect(id.length).toBeGreaterThan(MAX_WORKFLOW_ID);
    const bounded = boundedWorkflowId(id);
    expect(bounded).toHaveLength(MAX_WORKFLOW_ID);
    expect(bounded.slice(0, MAX_WORKFLOW_ID - 17)).toBe(id.slice(0, MAX_WORKFLOW_ID - 17));
    expect(bounded).toMatch(/~[0-9a-f]{16}$/);
    expect(boundedWorkflowId(id)).toBe(bounded);
    // A shortened parent's children and visits are shortened again, and stay apart.
    expect(boundedWorkflowId(`${bounded}.1.main`)).not.toBe(boundedWorkflowId(`${bounded}.2.main`));
  });

  it('count characters, not UTF-16 units, and never split one', () => {
    const id = `${'😀'.repeat(300)}`;
    const bounded = boundedWorkflowId(id);
    expect([...bounded]).toHaveLength(MAX_WORKFLOW_ID);
    expect(bounded.startsWith('😀'.repeat(MAX_WORKFLOW_ID - 17))).toBe(true);
    expect(fitsWorkflowId('😀'.repeat(MAX_WORKFLOW_ID))).toBe(true);
  });

  it('keep two long ids apart however alike, and never equal a worker id that fits', () => {
    const base = childRunId(run, 'p'.repeat(230));
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), (a, b) => {
        const [ia, ib] = [childRunId(base, a), childRunId(base, b)];
        if (a !== b) expect(boundedWorkflowId(ia)).not.toBe(boundedWorkflowId(ib));
        expect(boundedWorkflowId(ia)).not.toMatch(/\/[A-Za-z0-9_%-]*$/);
      }),
    );
  });
});

describe('the fan-out queue', () => {
  it('starts items in order, never more than the limit at once, and settles with every item ended', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (size, limit, picks) => {
          const q = new FanOutQueue(size, limit);
          const started: number[] = [];
          const running: number[] = [];
          let k = 0;
          while (!q.settled) {
            for (const i of q.startable()) {
              started.push(i);
              running.push(i);
            }
            if (limit > 0) expect(running.length).toBeLessThanOrEqual(limit);
            expect(q.counts().running).toBe(running.length);
            const [done] = running.splice((picks[k++] ?? 0) % running.length, 1);
            q.finish(done as number, (done as number) % 3 === 0 ? 'failed' : 'completed');
          }
          expect(started).toEqual(Array.from({ length: size }, (_, i) => i));
          const c = q.counts();
          expect(c.queued + c.running).toBe(0);
          expect(c.done + c.failed).toBe(size);
        },
      ),
    );
  });

  it('with fail-fast, stops at the first failure: the queued never start, the running are to be cancelled', () => {
    const q = new FanOutQueue(6, 2, true);
    expect(q.startable()).toEqual([0, 1]);
    expect(q.finish(0, 'completed')).toEqual([]);
    expect(q.startable()).toEqual([2]);
    expect(q.finish(2, 'failed')).toEqual([1]);
    expect(q.startable()).toEqual([]);
    expect(q.settled).toBe(false);
    q.finish(1, 'cancelled');
    expect(q.settled).toBe(true);
    expect(q.counts()).toEqual({ queued: 0, running: 0, done: 1, failed: 5 });
    expect([3, 4, 5].map((i) => q.status(i))).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('with no limit starts everything at once; an empty fan-out is settled from the start', () => {
    expect(new FanOutQueue(5, 0).startable()).toEqual([0, 1, 2, 3, 4]);
    expect(new FanOutQueue(0, 3).settled).toBe(true);
  });

  it("counts a shard's items: queued and running as its status, finished as its counts, stopped as failed", () => {
    // Three shards of 4, 4 and 2 items, one at a time, fail-fast.
    const q = new FanOutQueue(3, 1, true, [4, 4, 2]);
    expect(q.counts()).toEqual({ queued: 10, running: 0, done: 0, failed: 0 });
    expect(q.startable()).toEqual([0]);
    expect(q.counts()).toEqual({ queued: 6, running: 4, done: 0, failed: 0 });
    q.finish(0, 'completed', { succeeded: 4, failed: 0, cancelled: 0 });
    expect(q.startable()).toEqual([1]);
    expect(q.counts()).toEqual({ queued: 2, running: 4, done: 4, failed: 0 });
    q.finish(1, 'failed', { succeeded: 1, failed: 1, cancelled: 2 });
    expect(q.settled).toBe(true);
    expect(q.counts()).toEqual({ queued: 0, running: 0, done: 5, failed: 5 });
  });

  it('counts the same in items whether its jobs are workers or shards of one item each', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), (size, limit, ff) => {
        const workers = new FanOutQueue(size, limit, ff);
        const shards = new FanOutQueue(size, limit, ff, new Array<number>(size).fill(1));
        let k = 0;
        while (!workers.settled) {
          const started = workers.startable();
          expect(shards.startable()).toEqual(started);
          for (const i of started) {
            const failed = k++ % 4 === 3;
            workers.finish(i, failed ? 'failed' : 'completed');
            shards.finish(i, failed ? 'failed' : 'completed', {
              succeeded: failed ? 0 : 1,
              failed: failed ? 1 : 0,
              cancelled: 0,
            });
            expect(shards.counts()).toEqual(workers.counts());
          }
        }
        expect(shards.settled).toBe(true);
      }),
    );
  });
});

describe("how a worker's end reads", () => {
  const usage = { calls: 2, promptTokens: 10, completionTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const result: ChildRunResult = { status: 'completed', output: 'fine', stages: ['work'], usage };

  it('an answer, unless its stage owed one in a format and it gave none', () => {
    expect(childEnd({ ...result, outputFormat: 'text' }, true)).toMatchObject({ status: 'completed', output: 'fine' });
    expect(childEnd(result, false)).toMatchObject({ status: 'completed', output: 'fine', spend: { usage } });
    expect(childEnd(result, true)).toMatchObject({ status: 'failed', error: expect.stringMatching(/require_output/) });
    expect(childEnd({ ...result, outputMissing: true }, false).status).toBe('failed');
    const ref = { hash: 'h', bytes: 9000, preview: 'fi' };
    expect(childEnd({ ...result, outputRef: ref }, false)).toMatchObject({ status: 'completed', output: ref });
  });

  it('cancelled when stopped, else failed, with what the run spent before', () => {
    expect(failedEnd('', true, undefined)).toEqual({ status: 'cancelled', error: 'cancelled' });
    expect(failedEnd('boom', false, undefined)).toEqual({ status: 'failed', error: 'boom' });
    expect(failedEnd('boom', false, { usage }).spend?.usage).toEqual(usage);
    expect(failedEnd('', true, { usage })).toMatchObject({ status: 'cancelled', spend: { usage } });
  });
});

describe('shards of a large fan-out', () => {
  it('split items in order and never run more than max_workers in all', () => {
    expect(shardPlan(500, 30, 500)).toBeUndefined();
    expect(shardPlan(10, 3, 4)).toEqual({
      ranges: [
        { from: 0, to: 4 },
        { from: 4, to: 8 },
        { from: 8, to: 10 },
      ],
      concurrent: 3,
      limit: 1,
    });
    expect(shardPlan(10, 0, 4)).toMatchObject({ concurrent: 3, limit: 0 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12_000 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 900 }),
        (n, max, size) => {
          const plan = shardPlan(n, max, size);
          if (!plan) {
            expect(n).toBeLessThanOrEqual(size);
            return;
          }
          expect(plan.concurrent * plan.limit).toBeLessThanOrEqual(max);
          expect(plan.limit).toBeGreaterThanOrEqual(1);
          expect(plan.ranges.map((r) => r.to - r.from).reduce((a, b) => a + b, 0)).toBe(n);
          expect(plan.ranges.every((r, k) => r.from === (plan.ranges[k - 1]?.to ?? 0) && r.to - r.from <= size)).toBe(
            true,
          );
        },
      ),
    );
  });

  it('name their workflows so that no item id can take the name', () => {
    expect(shardRunId('run-1', 0)).toBe('run-1/~shard-1');
    expect(childRunId('run-1', '~shard-1')).toBe('run-1/%7Eshard-1');
  });
});

describe('fan_out arguments', () => {
  it('take items with unique ids and a context; an empty list is a valid answer', () => {
    expect(readItems({ items: [] })).toEqual([]);
    expect(
      readItems({
        items: [
          { id: 'a', context: 'x' },
          { id: 7, context: { q: 1 } },
        ],
      }),
    ).toEqual([
      { id: 'a', task: 'x' },
      { id: '7', task: '{\n  "q": 1\n}' },
    ]);
  });

  it.each([
    [{}, 'missing-argument'],
    [{ items: 'a, b' }, 'bad-argument'],
    [{ items: ['a'] }, 'bad-argument'],
    [{ items: [{ context: 'x' }] }, 'bad-argument'],
    [{ items: [{ id: ' ', context: 'x' }] }, 'bad-argument'],
    [{ items: [{ id: 'a' }] }, 'missing-argument'],
    [{ items: [{ id: 'x'.repeat(201), context: 'x' }] }, 'bad-argument'],
    [
      {
        items: [
          { id: 'a', context: 1 },
          { id: 'a', context: 2 },
        ],
      },
      'bad-argument',
    ],
  ])('refuse %j with %s', (args, expected) => {
    const r = readItems(args as Record<string, unknown>);
    expect(code(r)).toBe(expected);
    expect(toolRefusalText(r as never)).toMatch(new RegExp(`^\\[${expected}\\] fan_out`));
  });

  it('take at most 10,000 items, or the stage max_items', () => {
    const many = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ id: `i${i}`, context: '' })) });
    expect(readItems(many(MAX_FAN_OUT_ITEMS))).toHaveLength(MAX_FAN_OUT_ITEMS);
    expect(code(readItems(many(MAX_FAN_OUT_ITEMS + 1)))).toBe('fan-out-too-many');
    expect(code(readItems(many(5), 4))).toBe('fan-out-too-many');
    expect(readItems(many(4), 4)).toHaveLength(4);
  });

  it('name exactly one of agent and stage outside a fan-out stage', () => {
    expect(code(readFanOut(spawner(), main, { items: [] }))).toBe('missing-argument');
    expect(code(readFanOut(spawner(), main, { items: [], agent: 'helper', stage: 'worker' }))).toBe('bad-argument');
    expect(readFanOut(spawner(), main, { items: [], stage: 'worker' })).toMatchObject({
      target: { blueprint: { hash: 'h0' }, stage: 'worker' },
    });
  });

  it('take the worker from the blueprint in a fan-out stage, whatever the call names', () => {
    const fan = {
      ...main,
      fanOut: { worker: { stage: 'worker' }, maxWorkers: 2, onWorkerFailure: 'continue' as const, maxAttempts: 3 },
    };
    expect(readFanOut(spawner(), fan, { items: [], agent: 'someone' })).toMatchObject({ target: { stage: 'worker' } });
  });
});

describe('which agent or stage a call may start', () => {
  it('a stage that allows it, or an agent the blueprint names (as written or by its name)', () => {
    expect(resolveTarget(spawner(), { stage: 'worker' })).toMatchObject({ stage: 'worker', label: 'worker' });
    const helper = Object.keys(BP.agents ?? {})[0];
    expect(resolveTarget(spawner(), { agent: './helper' })).toEqual({
      blueprint: { agent: helper },
      label: './helper',
    });
    expect(resolveTarget(spawner(), { agent: 'helper' })).toMatchObject({ blueprint: { agent: helper } });
  });

  it('refuses an unknown agent or stage, a stage that does not allow it, and nesting too deep', () => {
    expect(code(resolveTarget(spawner(), { agent: 'ghost' }))).toBe('agent-unknown');
    expect(code(resolveTarget(spawner(), { stage: 'nope' }))).toBe('agent-unknown');
    expect(code(resolveTarget(spawner(), { stage: 'private' }))).toBe('worker-stage-not-allowed');
    expect(code(resolveTarget(spawner(3, 3), { stage: 'worker' }))).toBe('agent-depth-exceeded');
    expect(resolveTarget(spawner(2, 3), { stage: 'worker' })).toMatchObject({ stage: 'worker' });
  });

  it('a child is one level deeper and stays under its parent and every ancestor', () => {
    const top = topLineage(BP);
    const child = childLineage(top, 'root', 'main');
    const grandchild = childLineage(child, 'agent-hash', 'split');
    expect(grandchild).toEqual({
      maxDepth: DEFAULT_MAX_CHILD_DEPTH,
      ceiling: [
        { blueprintHash: 'root', stage: 'main' },
        { blueprintHash: 'agent-hash', stage: 'split' },
      ],
    });
    expect(depthOf(grandchild)).toBe(2);
    // A worker stage runs its parent's blueprint; an agent is read from the first blueprint's catalog.
    expect(childBlueprintOf({ parentRunId: 'r', lineage: grandchild })).toEqual({
      root: 'root',
      blueprint: { hash: 'agent-hash' },
    });
    expect(childBlueprintOf({ parentRunId: 'r', agent: '/b/x/agent.toml', lineage: child })).toEqual({
      root: 'root',
      blueprint: { agent: '/b/x/agent.toml' },
    });
  });
});

describe('spawn_agent and the id tools', () => {
  it('read the task, the optional fields and wait (true unless false)', () => {
    expect(readSpawn(spawner(), { stage: 'worker', task: 'count' })).toMatchObject({ task: 'count', wait: true });
    expect(
      readSpawn(spawner(), {
        blueprint: 'helper',
        task: 'write',
        seed_context: 'notes',
        output_format: 'json',
        output_instructions: 'one object',
        wait: false,
      }),
    ).toMatchObject({ seedContext: 'notes', output: { format: 'json', instructions: 'one object' }, wait: false });
    expect(code(readSpawn(spawner(), { stage: 'worker' }))).toBe('missing-argument');
    expect(code(readSpawn(spawner(), { stage: 'worker', task: 'x', wait: 'yes' }))).toBe('bad-argument');
    expect(code(readSpawn(spawner(), { stage: 'worker', task: 'x', seed_context: 3 }))).toBe('bad-argument');
  });

  it('check, wait and kill need an id; send needs a message too', () => {
    expect(readAgentId('check_agent', { id: 'r/1' })).toEqual({ id: 'r/1' });
    expect(code(readAgentId('check_agent', {}))).toBe('missing-argument');
    expect(code(readAgentId('kill_agent', { id: 3 }))).toBe('bad-argument');
    expect(readAgentId('send_to_agent', { id: 'r/1', message: 'hi' }, true)).toEqual({ id: 'r/1', message: 'hi' });
    expect(code(readAgentId('send_to_agent', { id: 'r/1', message: ' ' }, true))).toBe('bad-argument');
  });
});

describe('the merged report', () => {
  it('counts successes, failures and the rest in its first line, and marks each section', () => {
    expect(reportHeader(reportCounts([{ status: 'completed' }, { status: 'failed' }, { status: 'completed' }]))).toBe(
      '[fan_out results: 2 succeeded, 1 failed]',
    );
    expect(reportHeader(reportCounts([{ status: 'failed' }, { status: 'cancelled' }, { status: 'not-started' }]))).toBe(
      '[fan_out results: 0 succeeded, 1 failed, 2 cancelled]',
    );
    expect(sectionHeading({ id: 'w4', status: 'failed' })).toBe('## worker w4 FAILED');
    expect(sectionHeading({ id: 'w1', status: 'completed' })).toBe('## worker w1');
  });

  it('says why an item has no answer, and a shard that answered for none has one section for its items', () => {
    expect(reportItem('w1', undefined)).toEqual({
      id: 'w1',
      status: 'not-started',
      text: 'not started: an earlier worker failed',
    });
    expect(reportItem('w2', { status: 'failed', error: 'boom' })).toEqual({ id: 'w2', status: 'failed', text: 'boom' });
    expect(reportItem('w3', { status: 'completed', output: 'ok' })).toEqual({
      id: 'w3',
      status: 'completed',
      text: 'ok',
    });
    const items = [
      { id: 'a', task: '' },
      { id: 'b', task: '' },
      { id: 'c', task: '' },
    ];
    expect(rangeSection(items, 'cancelled', 'why')).toBe('## workers a to c CANCELLED (3 items)\nwhy');
    expect(rangeSection(items.slice(0, 1), 'not-started', 'why')).toBe('## workers a to a NOT STARTED (1 items)\nwhy');
    const failed = unansweredShard(items, 'failed', 'the shard running these items failed: x');
    expect(failed).toEqual({
      counts: { succeeded: 0, failed: 3, cancelled: 0 },
      part: '## workers a to c FAILED (3 items)\nthe shard running these items failed: x',
    });
    expect(shardEnd(failed)).toEqual({ status: 'failed', tally: failed.counts });
    const answered = { counts: { succeeded: 2, failed: 0, cancelled: 1 }, part: '## worker a\nok' };
    expect(shardEnd(answered)).toEqual({ status: 'completed', tally: answered.counts });
    const parts = [failed, unansweredShard(items.slice(1), 'not-started', 'an earlier worker failed')];
    expect(sumShardCounts(parts)).toEqual({ succeeded: 0, failed: 3, cancelled: 2 });
    expect(reportHeader(sumShardCounts(parts))).toBe('[fan_out results: 0 succeeded, 3 failed, 2 cancelled]');
  });

  it('gives every item an equal share of the room', () => {
    expect(itemShare(10_000, 4)).toBe(2500);
    expect(itemShare(100, 1000)).toBe(16);
    expect(itemShare(900, 0)).toBe(900);
  });

  it('says why an agent has no answer', () => {
    expect(agentFailedText('r/1', { status: 'failed', error: 'boom' })).toBe('[agent-failed] agent r/1 failed: boom');
    expect(agentFailedText('r/1', { status: 'cancelled', error: 'stopped' })).toMatch(/was cancelled/);
  });

  it("renders an object context as indented JSON, and seed_context lands in the child's first pinned region", () => {
    expect(taskText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    const shown = (bp: Blueprint) => {
      const state = createRunState(bp);
      for (const r of state.regions) r.hidden = false;
      return state;
    };
    expect(seedContextTarget(shown(BP))).toEqual({ region: 'task', kind: 'text' });
    const noPinned = blueprint('[context.regions]\nnotes = { kind = "temporary", max_tokens = 500 }\n[stages.main]\n');
    expect(seedContextTarget(shown(noPinned))).toEqual({ region: 'conversation', kind: 'user' });
  });
});
