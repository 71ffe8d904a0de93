/**
 * Following a run from the terminal (docs/reference/long-runs.md#provider-outages): `lev run`
 * says when a provider outage begins and when it is over, even when the run ends between two
 * polls of the resumed provider.
 */

import type { Client, WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { Progress, ProviderWait } from '../../src/runtime/types.js';
import { followRun } from '../../src/worker/run-client.js';

const outage: ProviderWait = { provider: 'openai', model: 'openai:gpt-4o', error: 'HTTP 503', since: 1, giveUpAt: 2 };

/** A run whose progress query answers `progress()` and whose result settles after `polls` queries. */
function fakeRun(progress: () => Partial<Progress>, polls: number, ends: 'completes' | 'fails') {
  let asked = 0;
  let settle: () => void = () => {};
  const result = new Promise<unknown>((resolve, reject) => {
    settle = () =>
      ends === 'completes' ? resolve({ status: 'completed', output: 'done' }) : reject(new Error('the run failed'));
  });
  result.catch(() => {});
  const query = async () => {
    if (++asked >= polls) settle();
    return { stage: 'main', inferences: 0, asks: [], ...progress() } as Progress;
  };
  const handle = { workflowId: 'run-1', result: () => result, query } as unknown as WorkflowHandle;
  const client = { workflow: { getHandle: () => ({ query }) } } as unknown as Client;
  return { client, handle };
}

describe('followRun', () => {
  it('reports the end of an outage when the run completes before a poll sees the provider back', async () => {
    const { client, handle } = fakeRun(() => ({ provider: outage }), 1, 'completes');
    const seen: (string | undefined)[] = [];
    const result = await followRun(client, handle, () => {}, {
      intervalMs: 5,
      onProvider: (w) => seen.push(w?.provider),
    });
    expect(result.output).toBe('done');
    expect(seen).toEqual(['openai', undefined]);
  });

  it('reports each outage once and its end once when polls see it', async () => {
    let n = 0;
    const { client, handle } = fakeRun(() => (++n <= 3 ? { provider: outage } : {}), 6, 'completes');
    const seen: (string | undefined)[] = [];
    await followRun(client, handle, () => {}, { intervalMs: 5, onProvider: (w) => seen.push(w?.provider) });
    expect(seen).toEqual(['openai', undefined]);
  });

  it('does not say the provider answers again when the run failed during the outage', async () => {
    const { client, handle } = fakeRun(() => ({ provider: outage }), 1, 'fails');
    const seen: (string | undefined)[] = [];
    await followRun(client, handle, () => {}, { intervalMs: 5, onProvider: (w) => seen.push(w?.provider) });
    expect(seen).toEqual(['openai']);
  });
});
