/**
 * An inference that answered is never paid for twice (docs/reference/long-runs.md#never-billed-twice):
 * the inference activity's work, called as its attempts would call it,
 * against a local OpenAI-compatible server that counts the requests.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import type { InferInput } from '../../src/runtime/activity-types.js';
import { answerKey } from '../../src/runtime/node/answered-calls.js';
import { infer, slotWaitMs } from '../../src/runtime/node/inference.js';
import { RunStore } from '../../src/runtime/node/run-store.js';
import { chatCompletion, startWireServer, type WireServer } from '../providers/wire-server.js';

const bp = loadBlueprintFromString('[agent]\nmodel = "openai:gpt-4o"\n[stages.main]\n', tmpdir(), 'agent.toml')
  .blueprint!;

describe('an inference that answered', () => {
  let server: WireServer;
  let served = 0;
  let blobDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startWireServer(() => {
      served++;
      return { delayMs: 200, json: chatCompletion({ content: `answer ${served}` }) };
    });
    blobDir = mkdtempSync(join(tmpdir(), 'lev-answered-'));
    env = { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-answered-calls-0123456789' };
  });
  afterAll(() => server.close());

  async function input(runId: string): Promise<InferInput> {
    const store = new RunStore({ blobDir, env });
    return {
      runId,
      blueprintHash: await store.putBlueprint(bp),
      base: null,
      ops: [{ call: { kind: 'enterStage', stage: 'main' }, now: 0, answers: [] }],
      stage: 'main',
      turn: 0,
      stageTurn: 0,
      purpose: 'turn',
    };
  }

  it('is answered from the store on its next attempt, on this worker or another, without a call', async () => {
    const call = await input('run-a');
    const key = answerKey('workflow-run-1', call);
    const before = server.requests.length;
    const first = await infer(new RunStore({ blobDir, env }), call, { attempt: 1, key });
    const again = await infer(new RunStore({ blobDir, env }), call, { attempt: 2, key });
    expect(again.content).toBe(first.content);
    expect(again.model).toBe('openai:gpt-4o');
    expect(server.requests.length - before).toBe(1);
  });

  it('waits for the call its earlier attempt still has in flight instead of calling again', async () => {
    const call = await input('run-b');
    const key = answerKey('workflow-run-2', call);
    const before = server.requests.length;
    const store = new RunStore({ blobDir, env });
    const [a, b] = await Promise.all([
      infer(store, call, { attempt: 1, key }),
      infer(store, call, { attempt: 2, key }),
    ]);
    expect(b.content).toBe(a.content);
    expect(server.requests.length - before).toBe(1);
  });

  it('calls again for another workflow run, another turn, or a call with no key', async () => {
    const call = await input('run-c');
    const store = new RunStore({ blobDir, env });
    const before = server.requests.length;
    await infer(store, call, { attempt: 1, key: answerKey('workflow-run-3', call) });
    await infer(store, call, { attempt: 1, key: answerKey('workflow-run-4', call) });
    await infer(store, { ...call, turn: 1 }, { attempt: 1, key: answerKey('workflow-run-3', { ...call, turn: 1 }) });
    await infer(store, call, { attempt: 1 });
    expect(server.requests.length - before).toBe(4);
  });

  it("keys a local inference without its operations' times, which a lost workflow task rebuilds later", async () => {
    const call = await input('run-local');
    const later = { ...call, ops: call.ops.map((op) => ({ ...op, now: op.now + 30 })) };
    expect(answerKey('workflow-run-5', later, true)).toBe(answerKey('workflow-run-5', call, true));
    expect(answerKey('workflow-run-5', later)).not.toBe(answerKey('workflow-run-5', call));
    expect(answerKey('workflow-run-5', { ...call, turn: 1 }, true)).not.toBe(answerKey('workflow-run-5', call, true));
  });

  it('leaves an attempt time for the provider after its wait for a [rate_limits] slot', () => {
    expect(slotWaitMs(900_000, 600_000)).toBe(300_000);
    expect(slotWaitMs(600_000, 600_000)).toBe(300_000);
    expect(slotWaitMs(2_000, 600_000)).toBe(1_000);
  });
});
