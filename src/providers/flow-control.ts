/**
 * The worker's own flow control towards model providers
 * (docs/reference/long-runs.md#flow-control): the `[rate_limits.<provider>]`
 * and `[rate_limits."<provider>:<model>"]` tables of the user config, held
 * once per worker process for every run it serves. A call takes a slot in
 * each table that names it, or waits in line for one:
 *
 * - `max_concurrent`: calls in flight at once;
 * - `requests_per_minute`: calls started in any 60 s;
 * - `tokens_per_minute`: the tokens of the calls started in any 60 s, each
 *   charged its prompt's count when it starts and its reported usage once
 *   it answers.
 *
 * Waiting is first come, first served per table: a call held by one table
 * does not hold back calls behind it that need other tables. A call whose tokens alone
 * pass `tokens_per_minute` starts once the last minute is empty of others.
 */

/** One table of `[rate_limits]`; an absent key does not limit. */
export interface RateLimit {
  maxConcurrent?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

export const WINDOW_MS = 60_000;

/** Time, injectable so tests can drive it. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A timer that only re-checks the line must not keep a process alive.
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** A call let through: release it when it ends, with the tokens it really used when known. */
export interface Permit {
  /** How long the call waited in line. */
  waitedMs: number;
  release(usedTokens?: number): void;
}

/** Why a call left the line without a slot. */
export class NoSlot extends Error {
  constructor(
    readonly waitedMs: number,
    readonly tables: string[],
  ) {
    super(
      `no slot under [rate_limits] ${tables.map((t) => `"${t}"`).join(', ')} within ${Math.round(waitedMs / 1000)} s`,
    );
    this.name = 'NoSlot';
  }
}

interface Start {
  at: number;
  tokens: number;
}

interface Table {
  limit: RateLimit;
  inFlight: number;
  /** Calls started in the last minute, oldest first. */
  starts: Start[];
}

interface Waiter {
  tables: string[];
  tokens: number;
  since: number;
  admit(permit: Permit): void;
  refuse(err: unknown): void;
  cleanup(): void;
}

export class FlowControl {
  private readonly tables = new Map<string, Table>();
  private line: Waiter[] = [];
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly clock: Clock = SYSTEM_CLOCK) {}

  /**
   * A slot in every table of `limits` for a call charged `tokens`, once they
   * all have room; refused with `NoSlot` at `deadline` (ms, the clock's
   * time), or with the signal's reason when it aborts.
   */
  acquire(
    limits: Readonly<Record<string, RateLimit>>,
    tokens: number,
    opts: { signal?: AbortSignal; deadline?: number } = {},
  ): Promise<Permit> {
    const names = Object.keys(limits);
    for (const name of names) this.table(name, limits[name] as RateLimit);
    const since = this.clock.now();
    if (names.length === 0) return Promise.resolve({ waitedMs: 0, release: () => {} });
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
    return new Promise<Permit>((resolve, reject) => {
      let deadlineTimer: unknown;
      const onAbort = () => this.leave(waiter, opts.signal?.reason);
      const waiter: Waiter = {
        tables: names,
        tokens,
        since,
        admit: resolve,
        refuse: reject,
        cleanup: () => {
          opts.signal?.removeEventListener('abort', onAbort);
          if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
        },
      };
      this.line.push(waiter);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.deadline !== undefined)
        deadlineTimer = this.clock.setTimeout(
          () => this.leave(waiter, new NoSlot(this.clock.now() - since, names)),
          Math.max(0, opts.deadline - since),
        );
      this.pump();
    });
  }

  /** Calls in flight and started in the last minute under one table, for tests and metrics. */
  usage(name: string): { inFlight: number; requests: number; tokens: number } {
    const t = this.tables.get(name);
    if (!t) return { inFlight: 0, requests: 0, tokens: 0 };
    this.forget(t, this.clock.now());
    return { inFlight: t.inFlight, requests: t.starts.length, tokens: t.starts.reduce((n, s) => n + s.tokens, 0) };
  }

  /** Calls waiting in line now. */
  get waiting(): number {
    return this.line.length;
  }

  private table(name: string, limit: RateLimit): Table {
    let t = this.tables.get(name);
    if (!t) {
      t = { limit, inFlight: 0, starts: [] };
      this.tables.set(name, t);
    }
    // The latest config wins: a worker reads it again as runs come and go.
    t.limit = limit;
    return t;
  }

  private leave(waiter: Waiter, err: unknown): void {
    const i = this.line.indexOf(waiter);
    if (i < 0) return;
    this.line.splice(i, 1);
    waiter.cleanup();
    waiter.refuse(err);
    // Those behind it may fit now.
    this.pump();
  }

  private forget(t: Table, now: number): void {
    while (t.starts.length > 0 && (t.starts[0] as Start).at <= now - WINDOW_MS) t.starts.shift();
  }

  /** When `t` can take a call of `tokens`: now (0), later (the time), or only when a slot frees (Infinity). */
  private roomAt(t: Table, tokens: number, now: number): number {
    this.forget(t, now);
    const { maxConcurrent, requestsPerMinute, tokensPerMinute } = t.limit;
    let at = 0;
    if (maxConcurrent !== undefined && t.inFlight >= maxConcurrent) at = Number.POSITIVE_INFINITY;
    if (requestsPerMinute !== undefined && t.starts.length >= requestsPerMinute) {
      const oldest = t.starts[t.starts.length - requestsPerMinute] as Start;
      at = Math.max(at, oldest.at + WINDOW_MS);
    }
    if (tokensPerMinute !== undefined && t.starts.length > 0) {
      // The oldest starts must leave the window until this call's tokens fit beside the rest.
      let used = t.starts.reduce((n, s) => n + s.tokens, 0);
      let i = 0;
      while (i < t.starts.length && used + tokens > tokensPerMinute) {
        used -= (t.starts[i] as Start).tokens;
        i++;
      }
      if (i > 0) at = Math.max(at, (t.starts[i - 1] as Start).at + WINDOW_MS);
    }
    return at;
  }

  private pump(): void {
    const now = this.clock.now();
    const blocked = new Set<string>();
    let wake = Number.POSITIVE_INFINITY;
    for (const waiter of [...this.line]) {
      // First come, first served per table: one waiting on a table holds back those behind it there.
      if (waiter.tables.some((n) => blocked.has(n))) continue;
      const rooms = waiter.tables.map(
        (n) => [n, this.roomAt(this.tables.get(n) as Table, waiter.tokens, now)] as const,
      );
      const full = rooms.filter(([, at]) => at > now);
      if (full.length === 0) this.admit(waiter, now);
      else
        for (const [n, at] of full) {
          blocked.add(n);
          wake = Math.min(wake, at);
        }
    }
    this.wakeAt(wake);
  }

  private admit(waiter: Waiter, now: number): void {
    this.line.splice(this.line.indexOf(waiter), 1);
    waiter.cleanup();
    const starts: [Table, Start][] = waiter.tables.map((n) => {
      const t = this.tables.get(n) as Table;
      const start = { at: now, tokens: waiter.tokens };
      t.inFlight++;
      t.starts.push(start);
      return [t, start];
    });
    let released = false;
    waiter.admit({
      waitedMs: now - waiter.since,
      release: (usedTokens) => {
        if (released) return;
        released = true;
        for (const [t, start] of starts) {
          t.inFlight--;
          if (usedTokens !== undefined) start.tokens = usedTokens;
        }
        this.pump();
      },
    });
  }

  private wakeAt(at: number): void {
    if (at === this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(0, at - this.clock.now()),
    );
  }
}
