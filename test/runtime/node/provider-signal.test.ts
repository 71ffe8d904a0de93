import { describe, expect, it } from 'vitest';
import { providerSignal } from '../../../src/runtime/node/provider-signal.js';

/** An attempt's cancellation as the SDK gives it, and a way to cancel it with its details. */
function attempt() {
  const controller = new AbortController();
  const context: { cancellationSignal: AbortSignal; cancellationDetails?: { timedOut: boolean; notFound: boolean } } = {
    cancellationSignal: controller.signal,
  };
  return {
    context,
    cancel(details: { timedOut?: boolean; notFound?: boolean }) {
      context.cancellationDetails = { timedOut: false, notFound: false, ...details };
      controller.abort(new Error('cancelled'));
    },
  };
}

/** Lets the signal's check of the run finish. */
const settle = () => new Promise((r) => setImmediate(r));

describe('the provider call of an attempt (docs/reference/long-runs.md#never-billed-twice)', () => {
  it('is aborted when its run is cancelled', async () => {
    const a = attempt();
    const signal = providerSignal(a.context, async () => true);
    a.cancel({});
    await settle();
    expect(signal.aborted).toBe(true);
  });

  it('runs on when the attempt timed out: the next attempt waits for its answer', async () => {
    const a = attempt();
    let asked = false;
    const signal = providerSignal(a.context, async () => {
      asked = true;
      return false;
    });
    a.cancel({ timedOut: true });
    await settle();
    expect(signal.aborted).toBe(false);
    expect(asked).toBe(false);
  });

  it('runs on when the server no longer knows the attempt but the run goes on', async () => {
    const a = attempt();
    const signal = providerSignal(a.context, async () => true);
    a.cancel({ notFound: true });
    await settle();
    expect(signal.aborted).toBe(false);
  });

  it('is aborted when the server no longer knows the attempt because its run has closed', async () => {
    const a = attempt();
    const signal = providerSignal(a.context, async () => false);
    a.cancel({ notFound: true });
    await settle();
    expect(signal.aborted).toBe(true);
  });

  it('follows a cancellation that came before the call', async () => {
    const a = attempt();
    a.cancel({ notFound: true });
    const signal = providerSignal(a.context, async () => false);
    await settle();
    expect(signal.aborted).toBe(true);
  });
});
