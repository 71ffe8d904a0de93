/**
 * Whether a server may answer at an address (docs/reference/operators.md#the-embedded-servers-database):
 * a local port nobody listens on is known at once, any other address is left to the Temporal probe.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, localEndpoint, mayAnswer } from '../../src/devserver/net.js';

describe('local addresses', () => {
  it('reads the host and port of the three local forms, and nothing else', () => {
    expect(localEndpoint('127.0.0.1:7233')).toEqual({ host: '127.0.0.1', port: 7233 });
    expect(localEndpoint('localhost:7233')).toEqual({ host: 'localhost', port: 7233 });
    expect(localEndpoint('[::1]:7233')).toEqual({ host: '::1', port: 7233 });
    expect(localEndpoint('temporal.example.com:7233')).toBeUndefined();
    expect(localEndpoint('10.0.0.7:7233')).toBeUndefined();
  });

  it('says no for a local port nobody listens on, yes for one that accepts, and leaves other addresses to the probe', async () => {
    const closed = await freePort();
    expect(await mayAnswer(`127.0.0.1:${closed}`, 5000)).toBe(false);
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    expect(await mayAnswer(`127.0.0.1:${port}`, 5000)).toBe(true);
    server.close();
    expect(await mayAnswer('192.0.2.1:7233', 5000)).toBe(true);
  });
});
