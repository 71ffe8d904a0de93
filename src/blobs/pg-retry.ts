/**
 * Which PostgreSQL failures are worth another try, and the backoff between
 * tries. A blob call that keeps failing on a transient error is thrown as a
 * plain error, so Temporal retries the whole activity later; an error the
 * user must fix (wrong password, missing database) is a coded LevError.
 */
import type pg from 'pg';
import { LevError } from '../errors.js';

/** Node socket errors of a server that restarts, drops us or is not up yet. */
const TRANSIENT_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'EAI_AGAIN']);

/**
 * SQLSTATEs: 57P01-03 admin shutdown / crash shutdown / cannot connect now,
 * 40001 serialization failure, 40P01 deadlock, 53300 too many connections,
 * 08xxx connection exceptions.
 */
const TRANSIENT_STATE = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '53300', '53400']);

/** SQLSTATEs that no retry fixes: bad credentials, unknown database or role, no permission. */
const CONFIG_STATE = new Set(['28P01', '28000', '3D000', '42501']);

export function isTransientPgError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (TRANSIENT_SOCKET.has(code) || TRANSIENT_STATE.has(code) || code.startsWith('08')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  // pg reports a socket closed under it by message only.
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

export interface RetryPolicy {
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, firstDelayMs: 100, maxDelayMs: 3000 };

/** Runs `work`, retrying transient failures with exponential backoff and jitter. */
export async function withPgRetry<T>(what: string, work: () => Promise<T>, policy = DEFAULT_RETRY): Promise<T> {
  let delay = policy.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code && CONFIG_STATE.has(e.code))
        throw new LevError(
          'blob-store-refused',
          `The Postgres blob store refused ${what} (${e.code}: ${e.message}); check the user, password and database in LEVIATH_BLOBS or [runtime] blobs.`,
        );
      if (!isTransientPgError(err) || attempt >= policy.attempts) {
        if (isTransientPgError(err))
          throw new Error(
            `[blob-store-unavailable] The Postgres blob store did not answer ${what} after ${attempt} tries (${e.message}); the activity is retried, so start or reach the database.`,
          );
        throw err;
      }
      await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random() / 2)));
      delay = Math.min(policy.maxDelayMs, delay * 2);
    }
  }
}

/** Runs a store's `schema` (its `CREATE ... IF NOT EXISTS` statements) in one transaction of its own on a connection of `pool`. */
export async function applySchema(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN;${schema}COMMIT;`);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
