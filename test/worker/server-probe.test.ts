/**
 * What answers at a Temporal address, judged in one coded line
 * (docs/reference/operating.md#connection-problems): the pure
 * `classifyConnectFailure`, and `probeServer` against a port where nothing
 * listens, plaintext gRPC servers of this process playing a Temporal frontend
 * that refuses the namespace or the credentials, and a plaintext server asked
 * for TLS. The lane's dev server with an unknown namespace is
 * test/integration/connection-problems.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createSecureServer, createServer, type Http2SecureServer, type Http2Server } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { LevError } from '../../src/errors.js';
import { classifyConnectFailure, hostPort, probeServer } from '../../src/worker/server-probe.js';

const target = { address: 'temporal.example:7233', namespace: 'team' };

describe('classifyConnectFailure', () => {
  it('names each problem with its own code and fix', () => {
    const judge = (f: Parameters<typeof classifyConnectFailure>[0]) => classifyConnectFailure(f, target);
    expect(judge({ step: 'tcp', errno: 'ECONNREFUSED', message: '', secured: false })).toMatchObject({
      code: 'server-unreachable',
      message: expect.stringMatching(/nothing listens there/),
    });
    expect(judge({ step: 'tcp', errno: 'ENOTFOUND', message: '', secured: false }).message).toMatch(/does not resolve/);
    expect(judge({ step: 'tcp', errno: 'timeout', message: '', secured: false }).code).toBe('server-unreachable');
    expect(judge({ step: 'tls', errno: 'EPROTO', message: 'wrong version number', secured: true })).toMatchObject({
      code: 'server-tls-mismatch',
      message: expect.stringMatching(/speaks plaintext; unset TEMPORAL_TLS/),
    });
    expect(judge({ step: 'grpc', grpcStatus: 5, message: 'not found', secured: false })).toMatchObject({
      code: 'namespace-not-found',
      message: expect.stringMatching(/no namespace "team"; pass --namespace/),
    });
    for (const grpcStatus of [7, 16])
      expect(judge({ step: 'grpc', grpcStatus, message: 'bad key', secured: true }).code).toBe('server-auth-refused');
    expect(judge({ step: 'grpc', message: 'deadline', secured: false, peerSpeaksTls: true })).toMatchObject({
      code: 'server-tls-mismatch',
      message: expect.stringMatching(/speaks TLS .*TEMPORAL_TLS=true/),
    });
    expect(judge({ step: 'grpc', grpcStatus: 12, message: 'HTTP 404', secured: false }).message).toMatch(
      /no Temporal frontend answers there/,
    );
  });

  it('says every line once, with no stack trace', () => {
    const { message } = classifyConnectFailure({ step: 'grpc', grpcStatus: 16, message: 'x', secured: true }, target);
    expect(message).not.toContain('\n');
  });

  it('reads host and port, IPv6 in brackets', () => {
    expect(hostPort('127.0.0.1:7233')).toEqual({ host: '127.0.0.1', port: 7233 });
    expect(hostPort('[::1]:7233')).toEqual({ host: '::1', port: 7233 });
    expect(hostPort('dns:///x')).toBeUndefined();
  });
});

/** A plaintext gRPC server answering GetSystemInfo with an empty message and every other call with `status`. */
async function fakeFrontend(status: { call: string; code: number }): Promise<{ address: string; server: Http2Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const method = req.url.split('/').at(-1);
      res.writeHead(200, { 'content-type': 'application/grpc' });
      const failing = method === status.call || status.call === '*';
      if (!failing) res.write(Buffer.alloc(5));
      res.addTrailers({
        'grpc-status': String(failing ? status.code : 0),
        ...(failing ? { 'grpc-message': 'refused by the test' } : {}),
      });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { address: `127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

async function codeOf(work: Promise<void>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (err) {
    if (err instanceof LevError) return { code: err.code, message: err.message };
    throw err;
  }
  return { code: 'none', message: '' };
}

describe('probeServer', () => {
  const servers: Http2Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it('is server-unreachable at once when nothing listens', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const r = await codeOf(probeServer({ address, namespace: 'default' }));
    expect(r.code).toBe('server-unreachable');
    // The refused connection itself, answered by the kernel; the SDK alone retried until its deadline.
    expect(r.message).toContain('connection refused');
  });

  it('is namespace-not-found when the frontend has no such namespace', async () => {
    const fake = await fakeFrontend({ call: 'DescribeNamespace', code: 5 });
    servers.push(fake.server);
    const r = await codeOf(probeServer({ address: fake.address, namespace: 'nope' }));
    expect(r).toMatchObject({ code: 'namespace-not-found', message: expect.stringContaining('"nope"') });
  });

  it('is server-auth-refused when the frontend refuses the credentials', async () => {
    const fake = await fakeFrontend({ call: '*', code: 16 });
    servers.push(fake.server);
    const r = await codeOf(
      probeServer({ address: fake.address, namespace: 'default', metadata: { authorization: 'Bearer wrong' } }),
    );
    expect(r.code).toBe('server-auth-refused');
  });

  it('is server-tls-mismatch when TLS or an API key meets a plaintext server', async () => {
    const fake = await fakeFrontend({ call: 'none', code: 0 });
    servers.push(fake.server);
    for (const settings of [{ tls: true }, { apiKey: 'key' }]) {
      const r = await codeOf(probeServer({ address: fake.address, namespace: 'default', ...settings }));
      expect(r.code).toBe('server-tls-mismatch');
      expect(r.message).toContain('does not complete a TLS handshake');
    }
  });

  it('takes a TLS server that wants a client certificate for one that speaks TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-probe-tls-'));
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
      ].concat(['-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    // TLS 1.2 refuses the missing client certificate inside the handshake, with an alert.
    const mtls: Http2SecureServer = createSecureServer({
      key: readFileSync(join(dir, 'key.pem')),
      cert: readFileSync(join(dir, 'cert.pem')),
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion: 'TLSv1.2',
    });
    await new Promise<void>((r) => mtls.listen(0, '127.0.0.1', () => r()));
    const address = `127.0.0.1:${(mtls.address() as { port: number }).port}`;
    try {
      const r = await codeOf(probeServer({ address, namespace: 'default', tls: true }, { callTimeoutMs: 1000 }));
      expect(r.code).not.toBe('server-tls-mismatch');
      expect(r.code).not.toBe('none');
    } finally {
      mtls.close();
    }
  });

  it('passes a frontend that knows the namespace', async () => {
    const fake = await fakeFrontend({ call: 'none', code: 0 });
    servers.push(fake.server);
    expect((await codeOf(probeServer({ address: fake.address, namespace: 'default' }))).code).toBe('none');
  });
});
