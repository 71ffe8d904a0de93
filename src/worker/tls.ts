/**
 * TLS and mTLS towards the Temporal frontend, from the environment so the
 * same variables serve `lev run`, `lev worker`, its healthcheck and
 * `lev blobs gc`: TEMPORAL_TLS_CA (the server's CA), TEMPORAL_TLS_CERT and
 * TEMPORAL_TLS_KEY (this client's pair, for mTLS) and
 * TEMPORAL_TLS_SERVER_NAME (the name in the server's certificate). Setting
 * only TEMPORAL_TLS=true uses TLS with the system's trusted CAs.
 */
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { LevError } from '../errors.js';

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new LevError(
      'tls-unreadable',
      `${variable}=${file} cannot be read (${(err as Error).message}); point it at a PEM file this process can read.`,
    );
  }
}

/** The connection's `tls` option, or undefined for a plain connection. */
export function temporalTls(env: NodeJS.ProcessEnv = process.env): TLSConfig | undefined {
  const ca = env.TEMPORAL_TLS_CA?.trim();
  const cert = env.TEMPORAL_TLS_CERT?.trim();
  const key = env.TEMPORAL_TLS_KEY?.trim();
  const serverName = env.TEMPORAL_TLS_SERVER_NAME?.trim();
  if (!ca && !cert && !key && !serverName && env.TEMPORAL_TLS !== 'true') return undefined;
  if (Boolean(cert) !== Boolean(key))
    throw new LevError(
      'tls-incomplete',
      'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY; set the one that is missing, or neither for TLS without a client certificate.',
    );
  return {
    ...(ca ? { serverRootCACertificate: readPem('TEMPORAL_TLS_CA', ca) } : {}),
    ...(cert && key
      ? { clientCertPair: { crt: readPem('TEMPORAL_TLS_CERT', cert), key: readPem('TEMPORAL_TLS_KEY', key) } }
      : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
}

/** `{ tls }` to spread into a connection's options, empty for a plain connection. */
export function tlsOption(env: NodeJS.ProcessEnv = process.env): { tls?: TLSConfig } {
  const tls = temporalTls(env);
  return tls ? { tls } : {};
}
