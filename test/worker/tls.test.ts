import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevError } from '../../src/errors.js';
import { temporalTls } from '../../src/worker/tls.js';

const dir = mkdtempSync(join(tmpdir(), 'lev-tls-'));
for (const name of ['ca.pem', 'client.pem', 'client.key']) writeFileSync(join(dir, name), `-----${name}-----\n`);

describe('TLS towards the Temporal frontend', () => {
  it('is off unless a TEMPORAL_TLS variable is set', () => {
    expect(temporalTls({})).toBeUndefined();
    expect(temporalTls({ TEMPORAL_TLS: 'true' })).toEqual({});
  });

  it('reads the CA, the client pair for mTLS and the server name from the files named', () => {
    const tls = temporalTls({
      TEMPORAL_TLS_CA: join(dir, 'ca.pem'),
      TEMPORAL_TLS_CERT: join(dir, 'client.pem'),
      TEMPORAL_TLS_KEY: join(dir, 'client.key'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(String(tls?.serverRootCACertificate)).toBe('-----ca.pem-----\n');
    expect(String(tls?.clientCertPair?.crt)).toBe('-----client.pem-----\n');
    expect(String(tls?.clientCertPair?.key)).toBe('-----client.key-----\n');
    expect(tls?.serverNameOverride).toBe('temporal.internal');
  });

  it('refuses half a client pair and a file it cannot read, with coded errors', () => {
    expect(() => temporalTls({ TEMPORAL_TLS_CERT: join(dir, 'client.pem') })).toThrow(
      expect.objectContaining({ code: 'tls-incomplete' }) as LevError,
    );
    expect(() => temporalTls({ TEMPORAL_TLS_CA: join(dir, 'missing.pem') })).toThrow(
      expect.objectContaining({ code: 'tls-unreadable' }) as LevError,
    );
  });
});
