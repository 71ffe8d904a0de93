/**
 * Every model call of this worker process passes one gate
 * (docs/reference/long-runs.md#flow-control): a slot under the user
 * config's `[rate_limits]` for its provider and model, shared by all the
 * runs the process serves, and the circuit of its endpoint, which holds the
 * calls to a provider that keeps failing while one call probes it.
 */
import { type Circuit, Circuits } from '../../providers/circuit-breaker.js';
import { FlowControl, NoSlot, type RateLimit } from '../../providers/flow-control.js';
import type { ModelProvider, Usage } from '../../providers/provider.js';
import { isProviderError, ProviderError } from '../../providers/provider-errors.js';

/** One per process: every worker and every run in it share them. */
const FLOW = new FlowControl();
const CIRCUITS = new Circuits();

export interface GateOptions {
  /** The `[rate_limits]` tables that hold this call (`limitsFor`). */
  limits: Readonly<Record<string, RateLimit>>;
  /** The tokens the call is charged when it starts: its prompt, as the region set counts it. */
  tokens: number;
  signal?: AbortSignal;
  /** When waiting for a slot gives up (ms since the epoch), so the attempt ends before its timeout. */
  deadline?: number;
}

/** The circuit of a provider's endpoint; the in-process scripted model has none. */
function circuitOf(provider: ModelProvider): Circuit | undefined {
  if (!provider.endpoint) return undefined;
  return CIRCUITS.of(`${provider.name} ${provider.endpoint}`, `${provider.name} at ${provider.endpoint}`);
}

export async function throughGate<R extends { usage: Usage }>(
  ref: string,
  provider: ModelProvider,
  opts: GateOptions,
  call: () => Promise<R>,
): Promise<R> {
  const permit = await FLOW.acquire(opts.limits, opts.tokens, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
  }).catch((err: unknown) => {
    if (!(err instanceof NoSlot)) throw err;
    throw new ProviderError(
      'rate-limit',
      `This worker holds calls to ${ref} to its ${err.message} (the user config's [rate_limits]); raise the limit, or run more workers.`,
      { provider: provider.name, retryNote: 'The call will be retried.' },
    );
  });
  const circuit = circuitOf(provider);
  let probe = false;
  try {
    ({ probe } = (await circuit?.pass()) ?? { probe: false });
  } catch (err) {
    permit.release();
    throw err;
  }
  try {
    const answer = await call();
    circuit?.answered();
    permit.release(answer.usage.promptTokens + answer.usage.completionTokens);
    return answer;
  } catch (err) {
    permit.release();
    // A provider that refused the request itself is up; only an outage counts against it.
    if (isProviderError(err) && err.retryable) circuit?.failed(err, probe);
    else if (isProviderError(err)) circuit?.answered();
    else circuit?.abandoned(probe);
    throw err;
  }
}
