/**
 * No message wedges a run (docs/reference/operators.md#rejected-messages): every
 * signal, update and query definition of `src/runtime/messages.ts`, read from the
 * module and never listed here, is sent with every wrong shape to a run, its
 * stage visit, a sub-agent's run and that sub-agent's visit while all four are
 * alive. Malformed signals are dropped and counted, malformed updates are
 * refused with their code, queries answer, and the run goes on and completes.
 */
import type { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { gateReached, openGate } from '../../src/providers/index.js';
import * as messages from '../../src/runtime/messages.js';
import { DEFAULT_RUN_OPTIONS, type Progress } from '../../src/runtime/types.js';
import { startRun } from '../../src/worker/run-client.js';
import { saveHistories, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

interface Definition {
  type: 'signal' | 'update' | 'query';
  name: string;
}

/** Every definition the module exports, once per kind and name (the run's and a visit's `message` share one). */
const DEFINITIONS: Definition[] = [
  ...new Map(
    (Object.values(messages) as unknown[])
      .filter((v): v is Definition => typeof v === 'object' && v !== null && 'type' in v && 'name' in v)
      .map((d) => [`${d.type}:${d.name}`, d]),
  ).values(),
];

/** The wrong shapes: a string, a number, null, an array, an object missing every field, one with only unknown fields, a megabyte. */
const SHAPES: unknown[] = ['garbage', 42, null, [1, 2], {}, { unexpected: true }, 'x'.repeat(1 << 20)];

/** The one send above that is well-formed: `message` takes any non-empty text up to 64 KiB. */
const wellFormed = (name: string, shape: unknown) => name === 'message' && shape === 'garbage';

const OPERATOR_CODES = ['bad-update', 'text-too-large', 'nothing-pending', 'already-paused', 'not-paused'];

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting until ${what}`);
}

describe('malformed messages', () => {
  const env = useRuntime();

  it('never wedge a run, its visit or a sub-agent: signals are dropped and counted, updates refused, and the run completes', async () => {
    const runId = `bad-messages-${Date.now()}`;
    const gate = `bad-messages-${process.pid}`;
    const model = scriptedModel({
      turns: [
        { stage: 'main', tool_calls: [{ name: 'spawn_agent', arguments: { stage: 'helper', task: 'Help.' } }] },
        { stage: 'main', text: 'Done, with help.' },
        { stage: 'helper', text: 'Helped.', gate },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "bad-messages"\nmodel = "${model}"\n[stages.main]\navailable_tools = ["spawn_agent"]\n[stages.helper]\nallow_as_worker = true\n`,
    );
    const handle = await startRun(
      env.rt.client,
      { blueprint: bp, task: 'Get help.', caller: {}, workdir: tempDir('bad-messages'), options: DEFAULT_RUN_OPTIONS },
      { taskQueue: env.rt.taskQueue, workflowId: runId },
    );
    // The sub-agent's inference is held: the run, its visit, the sub-agent and its visit are all alive.
    await gateReached(gate);
    const child = `${runId}/call_0_0`;
    const ids = [runId, `${runId}.1.main`, child, `${child}.1.helper`];
    for (const id of ids)
      await until(() => env.rt.client.workflow.getHandle(id).query(messages.progressQuery), `${id} answers`);

    const expected = new Map<string, number>();
    const covered = new Set<string>();
    for (const id of ids) {
      const target = env.rt.client.workflow.getHandle(id);
      // What the workflow registered: each definition of the module it handles gets every wrong shape.
      const { definition } = await target.query<{
        definition: Record<`${Definition['type']}Definitions`, { name: string }[]>;
      }>('__temporal_workflow_metadata');
      const registered = (d: Definition) => definition[`${d.type}Definitions`].some((r) => r.name === d.name);
      let dropped = 0;
      for (const def of DEFINITIONS.filter(registered)) {
        covered.add(`${def.type}:${def.name}`);
        // One definition's shapes go together; `pause` comes before `resume`, so the run ends up not paused.
        await Promise.all(
          SHAPES.map(async (shape) => {
            if (def.type === 'signal') {
              await target.signal(def.name, shape);
              if (!wellFormed(def.name, shape)) dropped++;
            } else if (def.type === 'query') {
              // A query only reads: it answers whatever it is given (`events` from the oldest it keeps).
              const answer = await target.query<Progress, [unknown]>(def.name, shape);
              expect(answer).toMatchObject(
                def.name === messages.eventsQuery.name
                  ? { v: 1, events: expect.any(Array), done: false }
                  : { runId: id.startsWith(child) ? child : runId },
              );
            } else {
              const refused = await target.executeUpdate(def.name, { args: [shape] }).then(
                () => undefined,
                (err: unknown) => (err as WorkflowUpdateFailedError).cause as ApplicationFailure,
              );
              if (refused) {
                expect(refused).toBeInstanceOf(ApplicationFailure);
                expect(OPERATOR_CODES).toContain(refused.type);
              }
              // No update takes a number or an array.
              if (typeof shape === 'number' || Array.isArray(shape)) expect(refused?.type).toBe('bad-update');
            }
          }),
        );
      }
      expected.set(id, dropped);
    }
    // Every definition of the module has a handler in one of the four, and got every shape.
    expect([...covered].sort()).toEqual(DEFINITIONS.map((d) => `${d.type}:${d.name}`).sort());

    // Each workflow went on: it answers, shows what it dropped, and is not left paused.
    for (const id of ids) {
      const want = expected.get(id) ?? 0;
      expect(want).toBeGreaterThan(0);
      const p = await until(async () => {
        const now = await env.rt.client.workflow.getHandle(id).query(messages.progressQuery);
        return now.rejected?.count === want ? now : undefined;
      }, `${id} counted ${want} dropped signals`);
      expect(p.rejected?.recent.at(-1)).toMatch(/^\[bad-signal\] `[a-z-]+` signal dropped: /);
      expect(p.paused).toBe(false);
    }
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain(`**Dropped messages**: ${expected.get(runId)}`);

    openGate(gate);
    await handle.result();
    await saveHistories(env.rt.client, runId);
    for (const id of ids) expect((await env.rt.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
  });
});
