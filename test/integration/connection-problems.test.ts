/**
 * A namespace the lane's dev server does not have
 * (docs/reference/operating.md#connection-problems): the reading commands,
 * `lev worker` and a detached `lev run` each end in one line,
 * `namespace-not-found`, naming the namespace and the fix; with the
 * server's own namespace the same commands go on. The other connection
 * problems (nothing listening, TLS mismatch, refused credentials) are
 * test/worker/server-probe.test.ts and test/cli/connection-errors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';

const UNKNOWN = `lev-no-such-namespace-${process.pid}`;

describe('an unknown namespace', () => {
  it('is namespace-not-found in one line for lev ps, lev show, lev worker and lev run --detach', async () => {
    const at = ['--address', temporalAddress(), '--namespace', UNKNOWN];
    for (const args of [
      ['ps'],
      ['show', 'some-run'],
      ['worker'],
      ['run', 'blueprints/demo', '--task', 'x', '--detach'],
    ]) {
      const r = await lev([...args, ...at], { env: { LEVIATH_CONFIG: '/nonexistent/config.toml' } });
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(
        new RegExp(`^error \\[namespace-not-found\\] .*no namespace "${UNKNOWN}"; pass --namespace`),
      );
    }
  });

  it('the namespace the server has passes the probe', async () => {
    // A run of its own, not a listing: the lane's server also holds other files' runs, encrypted ones among them.
    const r = await lev([
      'show',
      `no-such-run-${process.pid}`,
      '--address',
      temporalAddress(),
      '--namespace',
      'default',
    ]);
    expect(r.stderr, r.stderr).toMatch(/^error \[run-not-found\]/);
  });
});
