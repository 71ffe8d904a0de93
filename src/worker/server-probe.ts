/**
 * Before a command or a worker uses a Temporal server, a quick look at what
 * answers at the address (docs/reference/operating.md#connection-problems):
 * a TCP connection (refused at once when nothing listens), a TLS handshake
 * when the settings ask for TLS, then one DescribeNamespace call with a short
 * deadline. What went wrong is judged by `classifyConnectFailure`, a pure
 * function, into one coded line that says what to do; the SDK alone retries
 * for seconds and ends with a stack trace that names none of it.
 */
import { type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Connection } from '@temporalio/client';
import { LevError, type RuntimeCode } from '../errors.js';
import { connectOptions, isSecured, type ServerSettings } from './connection.js';

/** What the probe saw fail. */
export interface ConnectFailure {
  /** The step that failed: the TCP connection, the TLS handshake, or the Temporal call. */
  step: 'tcp' | 'tls' | 'grpc';
  /** A socket error's code (`ECONNREFUSED`, `ENOTFOUND`, ...), or `timeout`. */
  errno?: string;
  /** The gRPC status of the call's failure, when the server sent one. */
  grpcStatus?: number;
  message: string;
  /** The settings ask for TLS (TLS settings or an API key). */
  secured: boolean;
  /** Without TLS settings: the peer completed a TLS handshake, so it wants TLS. */
  peerSpeaksTls?: boolean;
}

export interface ProbeTarget {
  address: string;
  namespace: string;
  /** How to get a server at this address, for the unreachable case (`lev server` for a local one). */
  startHint?: string;
}

/** gRPC status codes the probe tells apart (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const GRPC_NOT_FOUND = 5;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNAUTHENTICATED = 16;

const TLS_SETTINGS = "TEMPORAL_TLS, TEMPORAL_TLS_CA/CERT/KEY, TEMPORAL_API_KEY or the profile's tls and api_key";

/** The one line a failed probe ends with: its code and the fix. */
export function classifyConnectFailure(f: ConnectFailure, t: ProbeTarget): { code: RuntimeCode; message: string } {
  const at = t.address;
  const start = t.startHint ?? 'start one (`lev server`) or pass --address (or TEMPORAL_ADDRESS)';
  if (f.step === 'tcp') {
    if (f.errno === 'ECONNREFUSED')
      return {
        code: 'server-unreachable',
        message: `No Temporal server answers at ${at}; nothing listens there (connection refused): ${start}.`,
      };
    if (f.errno === 'ENOTFOUND' || f.errno === 'EAI_AGAIN')
      return {
        code: 'server-unreachable',
        message: `The host of ${at} does not resolve (${f.errno}); check --address (or TEMPORAL_ADDRESS).`,
      };
    return {
      code: 'server-unreachable',
      message: `No Temporal server answers at ${at} (${f.errno ?? f.message}); check the address and that the server runs, or ${start}.`,
    };
  }
  if (f.step === 'tls')
    return {
      code: 'server-tls-mismatch',
      message: `The server at ${at} does not complete a TLS handshake (${f.message}), so it speaks plaintext; unset ${TLS_SETTINGS} for it, or give the address of the server's TLS endpoint.`,
    };
  if (f.grpcStatus === GRPC_NOT_FOUND)
    return {
      code: 'namespace-not-found',
      message: `The Temporal server at ${at} has no namespace "${t.namespace}"; pass --namespace (or TEMPORAL_NAMESPACE) with one it has (\`temporal operator namespace list\`), or create it (docs/reference/operating.md#a-namespace-of-your-own).`,
    };
  if (f.grpcStatus === GRPC_UNAUTHENTICATED || f.grpcStatus === GRPC_PERMISSION_DENIED)
    return {
      code: 'server-auth-refused',
      message: `The Temporal server at ${at} refused this client's credentials (${f.message}); check TEMPORAL_API_KEY, the client certificate (TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY) or TEMPORAL_GRPC_META_AUTHORIZATION, and that they grant namespace "${t.namespace}".`,
    };
  if (!f.secured && f.peerSpeaksTls)
    return {
      code: 'server-tls-mismatch',
      message: `The server at ${at} speaks TLS and this client plaintext; set TEMPORAL_TLS=true (with TEMPORAL_TLS_CA for a private CA), an API key, or a profile with a [tls] table.`,
    };
  return {
    code: 'server-unreachable',
    message: `Something listens at ${at} but no Temporal frontend answers there (${f.message}); check the address and port (the frontend's gRPC port, 7233 by default).`,
  };
}

/** Host and port of `HOST:PORT` or `[V6]:PORT`; undefined for an address the probe cannot read (the SDK then judges it). */
export function hostPort(address: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(address.trim());
  if (!m) return undefined;
  return { host: (m[1] ?? m[2]) as string, port: Number(m[3]) };
}

/** Resolves with the socket error's code when the step fails, undefined when it succeeds. */
function socketStep(
  open: () => Socket,
  ready: 'connect' | 'secureConnect',
  timeoutMs: number,
): Promise<{ errno: string; message: string } | undefined> {
  return new Promise((resolve) => {
    const socket = open();
    const done = (result: { errno: string; message: string } | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done({ errno: 'timeout', message: `no answer in ${timeoutMs} ms` }), timeoutMs);
    socket.once(ready, () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ errno: err.code ?? 'error', message: err.message.split('\n')[0] ?? err.message }),
    );
    // A peer that closes without a word has refused the handshake too.
    socket.once('close', () => done({ errno: 'closed', message: 'the server closed the connection' }));
  });
}

/**
 * Whether the peer speaks TLS: undefined when it does. Only that is asked here; the SDK checks the
 * certificate when it connects. A TLS alert (a server that wants a client certificate this probe
 * does not send) is an answer in TLS too.
 */
async function tlsHandshake(host: string, port: number, timeoutMs: number) {
  const failure = await socketStep(
    () => tlsConnect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }),
    'secureConnect',
    timeoutMs,
  );
  return failure && /ALERT/i.test(`${failure.errno} ${failure.message}`) ? undefined : failure;
}

function grpcStatusOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function messageOf(err: unknown): string {
  const inner = (err as { cause?: { details?: unknown; message?: unknown } }).cause;
  const details = (err as { details?: unknown }).details ?? inner?.details;
  const text = typeof details === 'string' && details ? details : String((err as Error).message ?? err);
  return text.split('\n')[0] ?? text;
}

/**
 * Checks that a Temporal frontend answers at the settings' address with their
 * namespace, and throws the coded line of `classifyConnectFailure` when not.
 * Nothing listening fails in the time a refused connection takes; the
 * Temporal call waits up to `callTimeoutMs`, which a busy server may need.
 */
export async function probeServer(
  settings: ServerSettings,
  opts: { startHint?: string; socketTimeoutMs?: number; callTimeoutMs?: number } = {},
): Promise<void> {
  const socketMs = opts.socketTimeoutMs ?? 1000;
  const callMs = opts.callTimeoutMs ?? 5000;
  const target: ProbeTarget = {
    address: settings.address,
    namespace: settings.namespace,
    ...(opts.startHint ? { startHint: opts.startHint } : {}),
  };
  const secured = isSecured(settings);
  const fail = (f: Omit<ConnectFailure, 'secured'>) => {
    const { code, message } = classifyConnectFailure({ ...f, secured }, target);
    return new LevError(code, message);
  };
  // Through a proxy (which gRPC honours) the address is not this machine's to reach directly.
  const proxied = ['grpc_proxy', 'https_proxy', 'http_proxy'].some(
    (v) => process.env[v] || process.env[v.toUpperCase()],
  );
  const endpoint = proxied ? undefined : hostPort(settings.address);
  if (endpoint) {
    const tcp = await socketStep(() => tcpConnect({ host: endpoint.host, port: endpoint.port }), 'connect', socketMs);
    if (tcp) throw fail({ step: 'tcp', ...tcp });
    if (secured) {
      const tls = await tlsHandshake(endpoint.host, endpoint.port, socketMs);
      if (tls) throw fail({ step: 'tls', ...tls });
    }
  }
  let connection: Connection | undefined;
  try {
    // Loaded only once something listens: the SDK takes longer to load than a refused connection takes to fail.
    const { Connection } = await import('@temporalio/client');
    connection = await Connection.connect({ ...connectOptions(settings), connectTimeout: callMs });
    const conn = connection;
    await conn.withDeadline(Date.now() + callMs, () =>
      conn.workflowService.describeNamespace({ namespace: settings.namespace }),
    );
  } catch (err) {
    const grpcStatus = grpcStatusOf(err);
    const judged = [GRPC_NOT_FOUND, GRPC_PERMISSION_DENIED, GRPC_UNAUTHENTICATED];
    const peerSpeaksTls =
      !secured && !judged.includes(grpcStatus ?? -1) && endpoint !== undefined
        ? (await tlsHandshake(endpoint.host, endpoint.port, socketMs)) === undefined
        : undefined;
    throw fail({
      step: 'grpc',
      message: messageOf(err),
      ...(grpcStatus !== undefined ? { grpcStatus } : {}),
      ...(peerSpeaksTls !== undefined ? { peerSpeaksTls } : {}),
    });
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
