/**
 * Connection problems and bad run ids at the command line
 * (docs/reference/operating.md#connection-problems): one line
 * `error [code] sentence`, no stack trace, from the refused connection itself
 * when nothing listens (no retries until a deadline); a run
 * id that cannot be one is a usage error (exit 2) for every command taking one.
 */
import { createServer, type Http2Server } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { lev } from './lev-in-process.js';

/** A plaintext HTTP/2 server that is no Temporal frontend: what a TLS client meets at the wrong port. */
let plaintext: Http2Server;
let plaintextAddress: string;
beforeAll(async () => {
  plaintext = createServer((_req, res) => res.end());
  await new Promise<void>((r) => plaintext.listen(0, '127.0.0.1', () => r()));
  plaintextAddress = `127.0.0.1:${(plaintext.address() as { port: number }).port}`;
});
afterAll(() => plaintext.close());

function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0] as string;
}

describe('connection problems', () => {
  it('nothing listening: lev ps, lev show and lev worker say so in one line, from the refused connection', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    for (const args of [['ps'], ['show', 'some-run'], ['worker']]) {
      const r = await lev([...args, '--address', address], { env: { TEMPORAL_TLS: undefined } });
      expect(r.code, args.join(' ')).toBe(1);
      expect(oneLine(r.stderr)).toMatch(
        /^error \[server-unreachable\] No Temporal server answers at .*connection refused/,
      );
    }
    // An API key (which turns TLS on) against a stopped server: the same line, not a TLS or SDK trace.
    const keyed = await lev(['ps', '--address', address], { env: { TEMPORAL_API_KEY: 'key' } });
    expect(oneLine(keyed.stderr)).toMatch(/^error \[server-unreachable\] .*connection refused/);
  });

  it('TLS or an API key against a plaintext server is server-tls-mismatch, not "no server answers"', async () => {
    for (const env of [{ TEMPORAL_TLS: 'true' }, { TEMPORAL_API_KEY: 'key' }]) {
      const r = await lev(['ps', '--address', plaintextAddress], { env });
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toMatch(/^error \[server-tls-mismatch\] .*speaks plaintext/);
    }
  });
});

describe('run ids', () => {
  const COMMANDS = [
    ['show'],
    ['result'],
    ['attach'],
    ['cancel'],
    ['pause'],
    ['resume'],
    ['approve'],
    ['deny'],
    ['answer'],
    ['msg', '%ID%', 'hello'],
    ['fork', '%ID%', '--turn', '1'],
  ];

  it('an empty, blank or control-character id is a usage error (exit 2) for every command that takes one', async () => {
    for (const bad of ['', '   ', 'run\n1', 'x'.repeat(1001)]) {
      for (const command of COMMANDS) {
        const args = command.includes('%ID%') ? command.map((a) => (a === '%ID%' ? bad : a)) : [...command, bad];
        const r = await lev([...args, '--address', '127.0.0.1:1']);
        expect(r.code, `${command[0]} ${JSON.stringify(bad.slice(0, 10))}`).toBe(2);
        expect(r.stderr).toContain('[run-id-bad]');
      }
    }
    const run = await lev(['run', 'blueprints/demo', '--task', 'x', '--id', '']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[run-id-bad]');
  });
});
