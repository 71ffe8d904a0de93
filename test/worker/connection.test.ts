/**
 * Connection settings (docs/reference/operating.md#connection-settings): flags over the
 * environment over a temporal.toml profile; and `lev` sends a profile's Temporal Cloud API key
 * and namespace on the wire, to a TLS gRPC server this test starts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createSecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevError } from '../../src/errors.js';
import { connectOptions, isSecured, serverSettings } from '../../src/worker/connection.js';
import { lev } from '../cli/lev-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'lev-conn-'));
function toml(text: string): string {
  const file = join(dir, `temporal-${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(file, text);
  return file;
}

const PROFILES = `
[profile.default]
address = "127.0.0.1:7299"

[profile.cloud]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "cloud-key"

[profile.cloud.grpc_meta]
team = "billing"
`;

describe('connection settings', () => {
  it('take the default profile of temporal.toml, else the local defaults', () => {
    expect(serverSettings({}, { TEMPORAL_CONFIG_FILE: toml(PROFILES) })).toEqual({
      address: '127.0.0.1:7299',
      namespace: 'default',
    });
    expect(serverSettings({}, { TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') })).toEqual({
      address: '127.0.0.1:7233',
      namespace: 'default',
    });
  });

  it('take a named profile with its API key (which means TLS) and headers', () => {
    const s = serverSettings({ profile: 'cloud' }, { TEMPORAL_CONFIG_FILE: toml(PROFILES) });
    expect(s).toEqual({
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      namespace: 'my-ns.a1b2c',
      apiKey: 'cloud-key',
      tls: true,
      metadata: { team: 'billing' },
    });
    expect(isSecured(s)).toBe(true);
    expect(connectOptions(s)).toEqual({
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      apiKey: 'cloud-key',
      tls: true,
      metadata: { team: 'billing' },
    });
    // TEMPORAL_PROFILE names it too.
    const env = { TEMPORAL_CONFIG_FILE: toml(PROFILES), TEMPORAL_PROFILE: 'cloud' };
    expect(serverSettings({}, env).namespace).toBe('my-ns.a1b2c');
  });

  it('let the environment override the profile, and flags override both', () => {
    const env = {
      TEMPORAL_CONFIG_FILE: toml(PROFILES),
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'agents',
      TEMPORAL_API_KEY: 'env-key',
    };
    expect(serverSettings({ profile: 'cloud' }, env)).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'agents',
      apiKey: 'env-key',
    });
    expect(serverSettings({ profile: 'cloud', address: 'flag:7233', namespace: 'flagged' }, env)).toMatchObject({
      address: 'flag:7233',
      namespace: 'flagged',
    });
  });

  it("use Leviath's own TLS variables over a profile's TLS", () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, '-----ca-----\n');
    const s = serverSettings({ profile: 'cloud' }, { TEMPORAL_CONFIG_FILE: toml(PROFILES), TEMPORAL_TLS_CA: ca });
    expect(String((s.tls as { serverRootCACertificate: Buffer }).serverRootCACertificate)).toBe('-----ca-----\n');
  });

  it('refuse a profile the file does not hold, or a file that is not TOML', () => {
    const bad = expect.objectContaining({ code: 'temporal-profile-bad' }) as LevError;
    expect(() => serverSettings({ profile: 'prod' }, { TEMPORAL_CONFIG_FILE: toml(PROFILES) })).toThrow(bad);
    expect(() => serverSettings({}, { TEMPORAL_CONFIG_FILE: toml('not [toml') })).toThrow(bad);
  });
});

describe('lev with a temporal.toml profile', () => {
  it("sends the profile's API key and namespace to the server it names, over TLS", async () => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        join(dir, 'server.key'),
        '-out',
        join(dir, 'server.pem'),
      ],
      { stdio: 'ignore' },
    );
    const seen: IncomingHttpHeaders[] = [];
    const server = createSecureServer({
      key: readFileSync(join(dir, 'server.key')),
      cert: readFileSync(join(dir, 'server.pem')),
    });
    const bodies: string[] = [];
    server.on('stream', (stream, headers) => {
      seen.push(headers);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        bodies.push(`${headers[':path']} ${Buffer.concat(chunks).toString('latin1')}`);
        // The system info and the probe's namespace answer (empty), so the command goes on to its listing.
        const ok = /\/(GetSystemInfo|DescribeNamespace)$/.test(String(headers[':path']));
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () =>
          stream.sendTrailers(ok ? { 'grpc-status': '0' } : { 'grpc-status': '7', 'grpc-message': 'denied' }),
        );
        stream.end(ok ? Buffer.alloc(5) : undefined);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const config = toml(
      `[profile.cloud]\naddress = "localhost:${port}"\nnamespace = "my-ns.a1b2c"\napi_key = "cloud-key-123"\n`,
    );
    try {
      // The server denies the listing; what it was sent is the point.
      await lev(['ps', '--profile', 'cloud'], {
        env: { TEMPORAL_CONFIG_FILE: config, TEMPORAL_TLS_CA: join(dir, 'server.pem') },
      });
    } finally {
      server.close();
    }
    const call = seen.find((h) => h.authorization);
    expect(call?.authorization).toBe('Bearer cloud-key-123');
    expect(bodies.find((b) => b.includes('/DescribeNamespace'))).toContain('my-ns.a1b2c');
    expect(bodies.find((b) => b.includes('/ListWorkflowExecutions'))).toContain('my-ns.a1b2c');
  });
});
