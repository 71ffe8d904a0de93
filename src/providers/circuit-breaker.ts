/**
 * One circuit per provider endpoint per worker process
 * (docs/reference/long-runs.md#flow-control): after `OPEN_AFTER` retryable
 * failures in a row the circuit opens, and the worker's calls to that
 * endpoint fail at once with the last failure instead of piling onto a
 * provider that is down. After a cooldown one call probes it; calls that
 * arrive meanwhile wait for the probe and go ahead when it answers. A
 * failed probe opens the circuit again for twice as long (at most a
 * minute); any answer closes it.
 */

import { type Clock, SYSTEM_CLOCK } from './flow-control.js';
import { ProviderError } from './provider-errors.js';

/** Retryable failures in a row that open a circuit. */
export const OPEN_AFTER = 3;
export const FIRST_COOLDOWN_MS = 5_000;
export const COOLDOWN_CAP_MS = 60_000;

type ProbeEnd = 'answered' | 'failed' | 'abandoned';

/** What a call learns when it asks to pass. */
export type Pass = { probe: boolean };

export class Circuit {
  private failures = 0;
  private openedAt: number | undefined;
  private cooldownMs = FIRST_COOLDOWN_MS;
  private lastError: ProviderError | undefined;
  private probe: { done: Promise<ProbeEnd>; end: (how: ProbeEnd) => void } | undefined;

  constructor(
    /** How the endpoint is named in messages: `openai at http://…`. */
    readonly label: string,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  get open(): boolean {
    return this.openedAt !== undefined;
  }

  /**
   * Lets a call through: at once while the circuit is closed; as the probe
   * once an open circuit's cooldown has passed; after the probe answered
   * for a call that arrives while one runs. Throws the circuit's failure
   * while it is open.
   */
  async pass(): Promise<Pass> {
    for (;;) {
      if (this.openedAt === undefined) return { probe: false };
      if (this.probe) {
        const end = await this.probe.done;
        if (end === 'answered') return { probe: false };
        if (end === 'failed') throw this.refusal();
        continue;
      }
      if (this.clock.now() < this.openedAt + this.cooldownMs) throw this.refusal();
      let end: (how: ProbeEnd) => void = () => {};
      const done = new Promise<ProbeEnd>((resolve) => {
        end = resolve;
      });
      this.probe = { done, end };
      return { probe: true };
    }
  }

  /** The provider answered (or refused the request itself, which shows it is up). */
  answered(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.cooldownMs = FIRST_COOLDOWN_MS;
    this.endProbe('answered');
  }

  /** A retryable failure of a call this circuit let through. */
  failed(err: ProviderError, probe: boolean): void {
    this.failures++;
    this.lastError = err;
    const now = this.clock.now();
    if (probe) {
      this.cooldownMs = Math.min(this.cooldownMs * 2, COOLDOWN_CAP_MS);
      this.openedAt = now;
      this.endProbe('failed');
    } else if (this.openedAt === undefined && this.failures >= OPEN_AFTER) this.openedAt = now;
  }

  /** The probe ended without an answer either way (the call was cancelled): another call probes. */
  abandoned(probe: boolean): void {
    if (probe) this.endProbe('abandoned');
  }

  private endProbe(how: ProbeEnd): void {
    const probe = this.probe;
    this.probe = undefined;
    probe?.end(how);
  }

  /**
   * The failure a call meets at an open circuit: the provider's last one, said the same way each
   * time, so a visit waiting it out has nothing new to tell its run.
   */
  private refusal(): ProviderError {
    const last = this.lastError;
    const detail = `${last?.detail ?? `${this.label} failed`} (calls to ${this.label} keep failing; this worker lets one call at a time probe it and holds the others)`;
    return new ProviderError(last?.kind ?? 'server', detail, {
      provider: last?.provider ?? this.label,
      ...(last?.status !== undefined ? { status: last.status } : {}),
      retryNote: 'The call will be retried.',
    });
  }
}

/** The circuits of one worker process, by endpoint. */
export class Circuits {
  private readonly byKey = new Map<string, Circuit>();

  constructor(private readonly clock: Clock = SYSTEM_CLOCK) {}

  of(key: string, label: string): Circuit {
    let c = this.byKey.get(key);
    if (!c) {
      c = new Circuit(label, this.clock);
      this.byKey.set(key, c);
    }
    return c;
  }
}
