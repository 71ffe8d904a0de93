/**
 * A run whose provider goes down, with a local OpenAI-compatible server
 * (docs/reference/long-runs.md#provider-outages). On the real dev server: it
 * waits, shows `waiting` for the provider (LeviathStatus, `lev ps`, `lev
 * show`, the current details) for as long as the test keeps the provider
 * down, and completes once it is back, paying once for each answer; a model
 * chain moves on after `fallback_after` and comes back; and an attempt that
 * got its answer but timed out never reaches the provider again
 * (docs/reference/long-runs.md#never-billed-twice). On the time-skipping
 * server, where only the visit's durable timers wait: a four-minute outage
 * costs the visit's history a timer, an activity and two workflow tasks per
 * try, and past `[run] provider_patience` the run fails with
 * `provider-unavailable`, its webhook told of the wait once.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRuns } from '../../src/cli/ps-action.js';
import { openGate } from '../../src/providers/index.js';
import { INFERENCE_SHAPES, shapeToml } from '../../src/runtime/inference-shape.js';
import { STATUS_KEY } from '../../src/runtime/search-attributes.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../../src/runtime/types.js';
import type { Notice } from '../../src/shapes/webhooks.js';
import { runProgress } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { listRuns, viewRun } from '../../src/worker/runs.js';
import { chatCompletion, type RecordedRequest, type Reply, startWireServer } from '../providers/wire-server.js';
import { startNoticeReceiver, temporalAddress } from './helpers.js';
import {
  saveHistories,
  scopedEnv,
  type TestRuntime,
  tempDir,
  useRuntime,
  useWireModel,
  writeBlueprint,
} from './run-helpers.js';
import { saveRunHistories, useTimeSkipping } from './time-skipping.js';
import { waitFor } from './worker-processes.js';

const down: Reply = {
  status: 503,
  json: { error: { message: 'The upstream model is overloaded.', type: 'server_error' } },
};

/** A tool call on the first turn of a visit, the answer once the tool's result is in. */
function twoTurns(req: RecordedRequest, answer: string): Reply {
  const done = (req.body?.messages ?? []).some((m: { role: string }) => m.role === 'tool');
  if (done) return { json: chatCompletion({ content: answer }) };
  const args = JSON.stringify({ path: 'notes.txt', content: 'checked' });
  return {
    json: chatCompletion(
      {
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write_file', arguments: args } }],
      },
      'tool_calls',
    ),
  };
}

/** The prompt a request renders: the same turn asked twice renders it twice. */
function turnOf(req: RecordedRequest): string {
  return JSON.stringify(req.body?.messages ?? []);
}

function startOn(rt: TestRuntime, toml: string, options: Partial<RunOptions> = {}): Promise<WorkflowHandle> {
  return startRun(
    rt.client,
    {
      blueprint: writeBlueprint(toml),
      task: 'check the notes',
      caller: {},
      workdir: tempDir('outage'),
      options: { ...DEFAULT_RUN_OPTIONS, ...options },
    },
    { taskQueue: rt.taskQueue },
  );
}

// Both inference shapes (docs/reference/blueprint.md#runtime) wait out an outage the same way.
describe.each(INFERENCE_SHAPES)('a run whose provider goes down, inferences as %s', (shape) => {
  const env = useRuntime();
  const wire = useWireModel();
  const vars = scopedEnv();
  let vllm: Awaited<ReturnType<typeof startWireServer>>;

  beforeAll(async () => {
    vllm = await startWireServer(() => ({ json: chatCompletion({ content: 'from vllm' }) }));
    vars.set({ VLLM_BASE_URL: `${vllm.url}/v1` });
  });
  afterAll(async () => {
    await vllm.close();
    vars.restore();
  });

  const start = (toml: string, options: Partial<RunOptions> = {}) =>
    startOn(env.rt, `${shapeToml(shape)}${toml}`, options);

  it('waits out 503s, shows provider-unavailable meanwhile, completes once the provider is back, and pays once per turn', async () => {
    wire.serve([]);
    // Down until the views below are checked, so the run waits for as long as that takes.
    let up = false;
    const answered = new Map<string, number>();
    wire.server.respond((req) => {
      if (!up) return down;
      answered.set(turnOf(req), (answered.get(turnOf(req)) ?? 0) + 1);
      return twoTurns(req, 'The notes are fine.');
    });
    const handle = await start(
      `[agent]\nname = "outage-views"\nmodel = "openai:gpt-4o"\n[stages.main]\navailable_tools = ["write_file"]\n`,
    );
    const runId = handle.workflowId;
    // What `lev run` follows: the wait starting, then ending.
    const followed: (string | undefined)[] = [];
    const following = followRun(env.rt.client, handle, () => {}, {
      intervalMs: 500,
      onProvider: (w) => followed.push(w?.provider),
    });
    const address = temporalAddress();
    // LeviathStatus says waiting, for a search of waiting runs as for the run itself.
    await waitFor(async () => {
      for await (const _ of env.rt.client.workflow.list({
        query: `WorkflowId = '${runId}' AND LeviathStatus = 'waiting'`,
      }))
        return true;
      return false;
    }, 120_000);
    const view = await viewRun(env.rt.client, runId, address);
    expect(view.status).toBe('waiting');
    const wait = view.waitingFor.find((w) => w.kind === 'provider');
    expect(wait?.detail).toMatch(
      /^the provider openai \(openai:gpt-4o\), unavailable since .*\[provider-server\] OpenAI failed on its side \(HTTP 503\): The upstream model is overloaded\..*fails with provider-unavailable at/,
    );
    const [row] = await listRuns(env.rt.client, {}, { limit: 20 }).then((rows) =>
      rows.filter((r) => r.runId === runId),
    );
    expect(row?.reason).toBe('provider-unavailable openai');
    expect(formatRuns(row ? [row] : [])).toContain('waiting (provider-unavailable openai)');
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toMatch(/\*\*Waiting for\*\* the provider `openai` \(`openai:gpt-4o`\)/);
    expect(meta.currentDetails).toContain('HTTP 503');

    up = true;
    const result = await following;
    await saveHistories(env.rt.client, runId);
    expect(followed).toEqual(['openai', undefined]);
    expect(result.output).toBe('The notes are fine.');
    // Each turn reached the provider once it was back, and once only.
    expect([...answered.values()]).toEqual([1, 1]);
    expect(result.usage.calls).toBe(2);
    expect((await handle.describe()).typedSearchAttributes.get(STATUS_KEY)).toBe('completed');
  });

  it('moves a model chain on after fallback_after, and back to its first entry later', async () => {
    wire.serve([]);
    vllm.requests.length = 0;
    let vllmAnswers = 0;
    // The first entry is down until the second has answered a turn, so it answers when the chain comes back to it.
    wire.server.respond((req) =>
      vllmAnswers < 1 ? down : { json: chatCompletion({ content: `back on openai: ${turnOf(req).length}` }) },
    );
    vllm.respond(() => {
      vllmAnswers++;
      const args = JSON.stringify({ path: `note-${vllmAnswers}.txt`, content: 'from the second entry' });
      return {
        json: chatCompletion(
          {
            content: null,
            tool_calls: [
              { id: `v${vllmAnswers}`, type: 'function', function: { name: 'write_file', arguments: args } },
            ],
          },
          'tool_calls',
        ),
      };
    });
    const handle = await start(
      `[agent]\nname = "outage-chain"\n[run]\nfallback_after = "1s"\n[stages.main]\navailable_tools = ["write_file"]\nmodel = { models = [{ provider = "openai", model = "gpt-4o" }, { provider = "vllm", model = "qwen3" }] }\n`,
    );
    const result = await handle.result();
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.output).toMatch(/^back on openai/);
    expect(vllm.requests.length).toBeGreaterThanOrEqual(1);
    const moved = result.diagnostics.filter((d: { code: string }) => d.code === 'provider-unavailable');
    expect(moved.length).toBeGreaterThanOrEqual(1);
    expect(moved[0]?.detail).toMatch(
      /^openai:gpt-4o unavailable \(.*HTTP 503.*\); the stage continues on vllm:qwen3 and tries openai:gpt-4o again in 1 s$/,
    );
    // The move is for now: nothing marks openai unusable for the run.
    expect(result.diagnostics.filter((d: { code: string }) => d.code === 'model-fallback')).toEqual([]);
  });

  // A local attempt that timed out shows nowhere outside its worker (it is no pending activity), so
  // this wait cannot be arranged for it; its attempts share the call the same way (answered-calls.ts).
  it.runIf(shape === 'activity')(
    'never calls the provider again for an answer an attempt got after its timeout',
    async () => {
      wire.serve([]);
      let served = 0;
      // The first answer comes only once the server has given up on the attempt that asked for it.
      const late = `billed-once-${process.pid}`;
      wire.server.respond(() => {
        served++;
        return served === 1
          ? { gate: late, json: chatCompletion({ content: 'Answered once.' }) }
          : { json: chatCompletion({ content: 'Answered twice.' }) };
      });
      const handle = await start(`[agent]\nname = "billed-once"\nmodel = "openai:gpt-4o"\n[stages.main]\n`, {
        inferenceTimeoutSecs: 1,
      });
      const visit = env.rt.client.workflow.getHandle(`${handle.workflowId}.1.main`);
      await waitFor(async () => {
        const pending = await visit.describe().then(
          (d) => d.raw.pendingActivities ?? [],
          () => [],
        );
        return pending.some((a) => (a.attempt ?? 0) >= 2);
      }, 60_000);
      openGate(late);
      const result = await handle.result();
      await saveHistories(env.rt.client, handle.workflowId);
      expect(result.output).toBe('Answered once.');
      expect(wire.server.requests).toHaveLength(1);
      // The first attempt did time out: the answer came from the second.
      const history = await env.rt.client.workflow.getHandle(`${handle.workflowId}.1.main`).fetchHistory();
      const started = history.events?.find(
        (e) => e.activityTaskStartedEventAttributes,
      )?.activityTaskStartedEventAttributes;
      expect(started?.attempt).toBeGreaterThanOrEqual(2);
    },
  );
});

describe.each(INFERENCE_SHAPES)(
  'a run whose provider goes down, inferences as %s, on the time-skipping server',
  (shape) => {
    const ts = useTimeSkipping();
    const wire = useWireModel();
    const notices: Notice[] = [];
    let hooks: Awaited<ReturnType<typeof startNoticeReceiver>>;

    beforeAll(async () => {
      hooks = await startNoticeReceiver(notices, '/hooks');
    });
    afterAll(async () => {
      await hooks.close();
    });

    /** The failure a run ended with, its histories kept for the replay test. */
    async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      await saveRunHistories(ts.rt.client, handle.workflowId);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      return (err as WorkflowFailedError).cause as ApplicationFailure;
    }

    it('waits out a four-minute outage on durable timers, each wait costing the visit at most twelve history events', async () => {
      wire.serve([]);
      wire.server.respond(() => down);
      const handle = await startOn(
        ts.rt,
        `${shapeToml(shape)}[agent]\nname = "outage-4m"\nmodel = "openai:gpt-4o"\n[stages.main]\navailable_tools = ["write_file"]\n`,
      );
      // Four minutes of the server's clock, skipped whenever the visit only waits on its timer. The
      // provider stays down: that the run completes once it is back is the dev server's test above.
      const from = await ts.env.currentTimeMs();
      await ts.env.sleep(240_000);
      expect((await ts.env.currentTimeMs()) - from).toBeGreaterThanOrEqual(240_000);
      const view = await runProgress(ts.rt.client, handle);
      expect(view).toMatchObject({ status: 'waiting', provider: { provider: 'openai', model: 'openai:gpt-4o' } });

      // What a retry costs the visit's history: a timer, an activity, two workflow tasks (eleven events).
      const events = (await ts.rt.client.workflow.getHandle(`${handle.workflowId}.1.main`).fetchHistory()).events ?? [];
      const first = events.findIndex((e) => e.timerStartedEventAttributes);
      const last = events.findLastIndex((e) => e.timerFiredEventAttributes);
      const waits = events.filter((e) => e.timerFiredEventAttributes).length;
      expect(waits).toBeGreaterThanOrEqual(4);
      const perWait = (last - first + 1) / waits;
      process.stdout.write(
        `4-minute outage, inferences as ${shape}: ${events.length} events in the visit, ${waits} waits, ${perWait.toFixed(1)} events per wait, ${wire.server.requests.length} requests to the provider\n`,
      );
      expect(perWait).toBeLessThanOrEqual(12);
      await handle.terminate('the outage it waits out is measured');
      await saveRunHistories(ts.rt.client, handle.workflowId);
    });

    it("fails with provider-unavailable after the blueprint's provider_patience, telling its webhook of the wait once", async () => {
      wire.serve([]);
      notices.length = 0;
      wire.server.respond(() => down);
      const handle = await startOn(
        ts.rt,
        `${shapeToml(shape)}[agent]\nname = "outage-patience"\nmodel = "openai:gpt-4o"\n[run]\nprovider_patience = "20s"\n[stages.main]\n`,
        { notify: [{ url: hooks.url, events: ['waiting', 'failed'] }] },
      );
      const cause = await failureOf(handle);
      expect(cause.type).toBe('provider-unavailable');
      expect(cause.message).toMatch(/the provider openai \(openai:gpt-4o\) has not answered for \d+ s/);
      await waitFor(() => notices.some((n) => n.event === 'failed'), 30_000);
      const waiting = notices.filter((n) => n.event === 'waiting');
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({
        runId: handle.workflowId,
        status: 'running',
        command: `lev show ${handle.workflowId}`,
        waiting: { kind: 'provider', subject: expect.stringContaining('the provider "openai" (openai:gpt-4o)') },
      });
    });
  },
);
