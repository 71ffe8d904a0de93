/**
 * A client without the codec key (docs/reference/operating.md#without-the-key): an answer or a
 * result it cannot read is `codec-key-missing`, never "no worker answered" nor a failed run; a
 * query that failed in a worker is still only a run nobody answers for.
 */
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { parseKeyFile } from '../../src/codec/keys.js';
import { AesGcmPayloadCodec, KeylessCodec } from '../../src/codec/payload-codec.js';
import { runProgress } from '../../src/worker/operators.js';
import { runOutcome } from '../../src/worker/run-client.js';

/** What this process's keyless codec throws on a sealed payload. */
async function refusal(): Promise<unknown> {
  const keys = parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys');
  const [sealed] = await new AesGcmPayloadCodec(keys).encode([defaultPayloadConverter.toPayload('secret')]);
  return new KeylessCodec().decode([sealed!]).catch((err: unknown) => err);
}

function answering(query: () => Promise<unknown>): { client: Client; handle: WorkflowHandle } {
  const handle = { workflowId: 'run-1', query, result: query } as unknown as WorkflowHandle;
  return { client: { workflow: { getHandle: () => handle } } as unknown as Client, handle };
}

describe('a client without the codec key', () => {
  it('says codec-key-missing for a progress answer it cannot read', async () => {
    const failure = await refusal();
    const { client, handle } = answering(() => Promise.reject(failure));
    await expect(runProgress(client, handle)).rejects.toMatchObject({ code: 'codec-key-missing' });
  });

  it('takes a query a worker failed, even for want of its own key, as no answer', async () => {
    const remote = ApplicationFailure.create({ type: 'codec-key-missing', message: 'the worker has no key' });
    const { client, handle } = answering(() => Promise.reject(new Error('query failed', { cause: remote })));
    await expect(runProgress(client, handle)).resolves.toBeUndefined();
  });

  it('says codec-key-missing for a result it cannot read instead of reporting a failed run', async () => {
    const failure = await refusal();
    const { handle } = answering(() => Promise.reject(failure));
    await expect(runOutcome(handle)).rejects.toMatchObject({ code: 'codec-key-missing' });
  });
});
