/**
 * The worker's flow control towards providers (docs/reference/long-runs.md#flow-control):
 * `max_concurrent`, `requests_per_minute` and `tokens_per_minute` held for
 * every call of the process, and the circuit that holds calls to an
 * endpoint that keeps failing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Circuit, COOLDOWN_CAP_MS, FIRST_COOLDOWN_MS, OPEN_AFTER } from '../../src/providers/circuit-breaker.js';
import {
  type Clock,
  FlowControl,
  NoSlot,
  type Permit,
  type RateLimit,
  WINDOW_MS,
} from '../../src/providers/flow-control.js';
import { ProviderError } from '../../src/providers/provider-errors.js';

/** A clock the test moves by hand; timers fire in time order as it passes them. */
class FakeClock implements Clock {
  time = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  /** Moves to `to`, firing each timer due on the way at its own time. */
  async advance(to: number): Promise<void> {
    for (;;) {
      const next = [...this.timers].sort((a, b) => a.at - b.at)[0];
      if (!next || next.at > to) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.fn();
      await settle();
    }
    this.time = to;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function serverError(): ProviderError {
  return new ProviderError('server', 'OpenAI failed on its side (HTTP 503): down.', {
    provider: 'openai',
    status: 503,
  });
}

describe('max_concurrent', () => {
  it('lets no more calls through at once than the table allows, and the next one in line when one ends', async () => {
    const clock = new FakeClock();
    const flow = new FlowControl(clock);
    const limits = { openai: { maxConcurrent: 2 } };
    const permits: Permit[] = [];
    for (let i = 0; i < 5; i++) void flow.acquire(limits, 10).then((p) => permits.push(p));
    await settle();
    expect(permits).toHaveLength(2);
    expect(flow.waiting).toBe(3);
    permits[0]?.release();
    await settle();
    expect(permits).toHaveLength(3);
    expect(flow.usage('openai').inFlight).toBe(2);
  });

  it('holds a call to both its provider table and its model table', async () => {
    const flow = new FlowControl(new FakeClock());
    const provider: Record<string, RateLimit> = { openai: { maxConcurrent: 3 } };
    const model = { ...provider, 'openai:gpt-4o': { maxConcurrent: 1 } };
    const got: string[] = [];
    const first = await flow.acquire(model, 1);
    void flow.acquire(model, 1).then(() => got.push('gpt-4o'));
    void flow.acquire({ ...provider, 'openai:gpt-4o-mini': { maxConcurrent: 5 } }, 1).then(() => got.push('mini'));
    await settle();
    // The second gpt-4o call waits for its model; the mini call passes it, since they share only the provider.
    expect(got).toEqual(['mini']);
    first.release();
    await settle();
    expect(got).toEqual(['mini', 'gpt-4o']);
  });

  it('gives up at the deadline with NoSlot, and on abort with its reason', async () => {
    const clock = new FakeClock();
    const flow = new FlowControl(clock);
    const limits = { openai: { maxConcurrent: 1 } };
    await flow.acquire(limits, 1);
    const late = flow.acquire(limits, 1, { deadline: 30_000 });
    const controller = new AbortController();
    const aborted = flow.acquire(limits, 1, { signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    const settled = late.catch((err: unknown) => err);
    await clock.advance(30_000);
    const err = await settled;
    expect(err).toBeInstanceOf(NoSlot);
    expect((err as NoSlot).message).toBe('no slot under [rate_limits] "openai" within 30 s');
    expect(flow.waiting).toBe(0);
  });
});

describe('requests_per_minute and tokens_per_minute', () => {
  it('starts the call past the budget when the oldest start leaves the minute', async () => {
    const clock = new FakeClock();
    const flow = new FlowControl(clock);
    const limits = { anthropic: { requestsPerMinute: 2 } };
    (await flow.acquire(limits, 1)).release();
    await clock.advance(10_000);
    (await flow.acquire(limits, 1)).release();
    let third: Permit | undefined;
    void flow.acquire(limits, 1).then((p) => {
      third = p;
    });
    await clock.advance(WINDOW_MS - 1);
    expect(third).toBeUndefined();
    await clock.advance(WINDOW_MS);
    expect(third?.waitedMs).toBe(WINDOW_MS - 10_000);
  });

  it('charges the reported usage once a call ends, and lets a call larger than the budget start alone', async () => {
    const clock = new FakeClock();
    const flow = new FlowControl(clock);
    const limits = { anthropic: { tokensPerMinute: 1000 } };
    const a = await flow.acquire(limits, 300);
    a.release(900);
    let big: Permit | undefined;
    void flow.acquire(limits, 5000).then((p) => {
      big = p;
    });
    await clock.advance(WINDOW_MS - 1);
    expect(big).toBeUndefined();
    expect(flow.usage('anthropic').tokens).toBe(900);
    await clock.advance(WINDOW_MS);
    expect(big).toBeDefined();
  });

  it('never has more in flight than max_concurrent, nor starts more than the budgets in any minute (property)', async () => {
    const call = fc.record({
      arriveGap: fc.nat(20_000),
      durationMs: fc.integer({ min: 1, max: 90_000 }),
      tokens: fc.integer({ min: 1, max: 400 }),
      used: fc.integer({ min: 1, max: 400 }),
      model: fc.constantFrom('m1', 'm2'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 30 }),
        fc.record({
          maxConcurrent: fc.integer({ min: 1, max: 4 }),
          requestsPerMinute: fc.integer({ min: 1, max: 8 }),
          tokensPerMinute: fc.integer({ min: 400, max: 1500 }),
        }),
        fc.integer({ min: 1, max: 3 }),
        async (calls, limit, modelConcurrent) => {
          const clock = new FakeClock();
          const flow = new FlowControl(clock);
          const starts: { at: number; tokens: number }[] = [];
          let inFlight = 0;
          const inFlightByModel: Record<string, number> = { m1: 0, m2: 0 };
          let peak = 0;
          let modelPeak = 0;
          let done = 0;
          let arrive = 0;
          for (const c of calls) {
            arrive += c.arriveGap;
            await clock.advance(arrive);
            const limits = { p: limit, [`p:${c.model}`]: { maxConcurrent: modelConcurrent } };
            void flow.acquire(limits, c.tokens).then(async (permit) => {
              const now = clock.now();
              // The budgets as they stood when the call was let through.
              const recent = starts.filter((s) => s.at > now - WINDOW_MS);
              expect(recent.length + 1).toBeLessThanOrEqual(limit.requestsPerMinute);
              const tokens = recent.reduce((n, s) => n + s.tokens, 0);
              if (recent.length > 0) expect(tokens + c.tokens).toBeLessThanOrEqual(limit.tokensPerMinute);
              const start = { at: now, tokens: c.tokens };
              starts.push(start);
              inFlight++;
              inFlightByModel[c.model] = (inFlightByModel[c.model] ?? 0) + 1;
              peak = Math.max(peak, inFlight);
              modelPeak = Math.max(modelPeak, inFlightByModel[c.model] ?? 0);
              clock.setTimeout(() => {
                inFlight--;
                inFlightByModel[c.model] = (inFlightByModel[c.model] ?? 0) - 1;
                start.tokens = c.used;
                done++;
                permit.release(c.used);
              }, c.durationMs);
            });
            await settle();
          }
          await clock.advance(arrive + calls.length * 200_000);
          expect(done).toBe(calls.length);
          expect(peak).toBeLessThanOrEqual(limit.maxConcurrent);
          expect(modelPeak).toBeLessThanOrEqual(modelConcurrent);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the circuit of an endpoint', () => {
  const label = 'openai at http://127.0.0.1:1';

  it('opens after three failures in a row and fails calls at once with the last failure', async () => {
    const clock = new FakeClock();
    const circuit = new Circuit(label, clock);
    for (let i = 0; i < OPEN_AFTER; i++) {
      const { probe } = await circuit.pass();
      circuit.failed(serverError(), probe);
    }
    expect(circuit.open).toBe(true);
    const refused = await circuit.pass().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ProviderError);
    expect((refused as ProviderError).kind).toBe('server');
    expect((refused as ProviderError).detail).toMatch(
      /^OpenAI failed on its side \(HTTP 503\): down\. \(calls to openai at http:\/\/127\.0\.0\.1:1 keep failing; this worker lets one call at a time probe it and holds the others\)$/,
    );
  });

  it('lets one call probe after the cooldown while the others wait for it, and closes when it answers', async () => {
    const clock = new FakeClock();
    const circuit = new Circuit(label, clock);
    for (let i = 0; i < OPEN_AFTER; i++) circuit.failed(serverError(), false);
    await clock.advance(FIRST_COOLDOWN_MS);
    const probe = await circuit.pass();
    expect(probe.probe).toBe(true);
    const waiting = circuit.pass();
    let passed = false;
    void waiting.then(() => {
      passed = true;
    });
    await settle();
    expect(passed).toBe(false);
    circuit.answered();
    await expect(waiting).resolves.toEqual({ probe: false });
    expect(circuit.open).toBe(false);
  });

  it('opens again for twice as long after a failed probe, at most a minute, and tells the waiting calls', async () => {
    const clock = new FakeClock();
    const circuit = new Circuit(label, clock);
    for (let i = 0; i < OPEN_AFTER; i++) circuit.failed(serverError(), false);
    let cooldown = FIRST_COOLDOWN_MS;
    for (let round = 0; round < 6; round++) {
      await clock.advance(clock.now() + cooldown - 1);
      await expect(circuit.pass()).rejects.toBeInstanceOf(ProviderError);
      await clock.advance(clock.now() + 1);
      const { probe } = await circuit.pass();
      expect(probe).toBe(true);
      const other = circuit.pass().catch((err: unknown) => err);
      circuit.failed(serverError(), true);
      expect(await other).toBeInstanceOf(ProviderError);
      cooldown = Math.min(cooldown * 2, COOLDOWN_CAP_MS);
    }
    expect(cooldown).toBe(COOLDOWN_CAP_MS);
  });

  it('hands the probe to another call when the probing one is cancelled', async () => {
    const clock = new FakeClock();
    const circuit = new Circuit(label, clock);
    for (let i = 0; i < OPEN_AFTER; i++) circuit.failed(serverError(), false);
    await clock.advance(FIRST_COOLDOWN_MS);
    const first = await circuit.pass();
    const second = circuit.pass();
    circuit.abandoned(first.probe);
    await expect(second).resolves.toEqual({ probe: true });
  });
});
