/**
 * Who may talk to `lev serve` (docs/reference/http-api.md#auth): anyone on
 * this machine while it listens on loopback without a token; with a bearer
 * token (`--token`, `LEVIATH_SERVE_TOKEN`), only requests that carry it.
 * Listening beyond loopback without a token is refused at start.
 */
import { timingSafeEqual } from 'node:crypto';
import { LevError } from '../../errors.js';

/** A host name or address that only this machine reaches. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The refusal to listen on `host` without a token, when it is not loopback. */
export function bindingRefusal(host: string, token: string | undefined): LevError | undefined {
  if (token || isLoopback(host)) return undefined;
  return new LevError(
    'serve-token-required',
    `lev serve would listen on ${host}, beyond this machine, without a token; give --token (or LEVIATH_SERVE_TOKEN), or keep the default --host 127.0.0.1.`,
  );
}

/** The token from `--token`, else `LEVIATH_SERVE_TOKEN`; an empty one is none. */
export function serveToken(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flag?.trim() || env.LEVIATH_SERVE_TOKEN?.trim() || undefined;
}

/** Whether a request's `Authorization` header carries the token (compared in constant time). */
export function carriesToken(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1] as string);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * Whether a request's `Host` names this machine: without a token, a page of
 * another site that gets its name resolved to 127.0.0.1 (DNS rebinding)
 * must not reach the runs.
 */
export function hostIsLocal(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0];
  return isLoopback(host ?? '');
}
