#!/usr/bin/env node
// The real Temporal server, built from source: `temporal-server` and
// `temporal-sql-tool` from the Go module go.temporal.io/server at the version
// deploy/temporal-server/go.mod requires, cached outside the clone so a
// clean clone (CI's) builds them once per version and go.sum. It also sets up
// the schema on PostgreSQL, writes the server's config file and starts it:
// the real-server tests (test/integration/real-server.test.ts) and
// `node scripts/temporal-server.mjs start` both go through here
// (docs/cluster.md#the-real-server-from-source). Plain JavaScript, like the
// other scripts, so it runs before anything is compiled.
//
//   node scripts/temporal-server.mjs [build]     build (or find) the binaries, print their folder
//   node scripts/temporal-server.mjs start --postgres postgres://USER:PASSWORD@HOST:PORT [--port 7233] [--dir DIR]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userDirs } from '../src/state/user-dirs.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The Go module whose `tool` lines name the two upstream commands. */
export const MODULE_DIR = join(ROOT, 'deploy', 'temporal-server');
/**
 * go.temporal.io/server v1.32.2 asks for Go 1.26.10; the one newer Go the
 * project's machines may use is this toolchain, which the go command takes
 * from the Go module proxy like a module (go 1.21 or newer can switch).
 */
export const GO_TOOLCHAIN = 'go1.27.3';
/** Search attributes Leviath writes (the same list `lev server` gives the dev server). */
export const SEARCH_ATTRIBUTES = [
  'LeviathBlueprint',
  'LeviathStage',
  'LeviathStatus',
  'LeviathParent',
  'LeviathForkOf',
];

const GO_HELP =
  'The real-server tests build the Temporal server from source and need Go 1.21 or newer on PATH ' +
  `(it switches to ${GO_TOOLCHAIN} by itself): install Go from https://go.dev/dl/ or your distribution, ` +
  'then run `node scripts/temporal-server.mjs` (see CONTRIBUTING.md#set-up-and-checks).';

/** The go.temporal.io/server version deploy/temporal-server/go.mod requires, without the `v`. */
export function serverVersion(moduleDir = MODULE_DIR) {
  const match = /^\s*go\.temporal\.io\/server v(\d+\.\d+\.\d+)\b/m.exec(
    readFileSync(join(moduleDir, 'go.mod'), 'utf8'),
  );
  if (!match) throw new Error(`${moduleDir}/go.mod requires no go.temporal.io/server version`);
  return match[1];
}

/**
 * Where the binaries of this go.mod and go.sum live:
 * `temporal-server-<version>-<hash>` in Leviath's cache (`${XDG_CACHE_HOME:-~/.cache}/leviath`,
 * src/state/user-dirs.mjs), so a change of version or of any dependency builds anew and
 * never reuses a stale build.
 */
export function cacheDir(env = process.env, moduleDir = MODULE_DIR) {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(join(moduleDir, file)));
  return join(userDirs(env).cache, `temporal-server-${serverVersion(moduleDir)}-${hash.digest('hex').slice(0, 12)}`);
}

/** The two binaries in `dir`. */
export function binariesIn(dir) {
  return { dir, server: join(dir, 'temporal-server'), sqlTool: join(dir, 'temporal-sql-tool') };
}

/** The cached binaries, or undefined when they were never built for this go.mod and go.sum. */
export function cachedBinaries(env = process.env) {
  const bins = binariesIn(cacheDir(env));
  return existsSync(bins.server) && existsSync(bins.sqlTool) ? bins : undefined;
}

/** `go version`'s minor number, or undefined when there is no go on PATH (scripts/compose-config.mjs asks too). */
export function goMinor(env = process.env) {
  const out = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env: { ...env, GOTOOLCHAIN: 'local' } });
  if (out.error || out.status !== 0) return undefined;
  const match = /^go1\.(\d+)/.exec(out.stdout.trim());
  return match ? Number(match[1]) : 0;
}

/**
 * Builds both binaries when the cache lacks them (minutes the first time,
 * then nothing): `go build` of the upstream packages with the flags of the
 * server's own release build (no cgo, `disable_grpc_modules`), into a
 * temporary folder renamed into place, so an interrupted or concurrent build
 * never leaves half a cache. Throws with what to install when Go is missing.
 */
export function ensureTemporalServer({ env = process.env, log = () => {} } = {}) {
  const cached = cachedBinaries(env);
  if (cached) return cached;
  const minor = goMinor(env);
  if (minor === undefined) throw new Error(`Go is not installed. ${GO_HELP}`);
  if (minor < 21) throw new Error(`The Go on PATH is older than 1.21 and cannot switch toolchains. ${GO_HELP}`);
  const dir = cacheDir(env);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  log(`building the Temporal server ${serverVersion()} and temporal-sql-tool from source into ${dir} (once) ...`);
  const started = Date.now();
  const built = spawnSync(
    'go',
    [
      'build',
      '-tags',
      'disable_grpc_modules',
      '-o',
      `${tmp}/`,
      'go.temporal.io/server/cmd/server',
      'go.temporal.io/server/cmd/tools/sql',
    ],
    {
      cwd: MODULE_DIR,
      stdio: ['ignore', 'inherit', 'inherit'],
      // -mod=readonly: the committed go.sum must cover every module; nothing is resolved anew here.
      env: { ...env, GOTOOLCHAIN: GO_TOOLCHAIN, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' },
    },
  );
  if (built.error || built.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `go build of the Temporal server failed (status ${built.status}); see the output above. ${GO_HELP}`,
    );
  }
  renameSync(join(tmp, 'server'), join(tmp, 'temporal-server'));
  renameSync(join(tmp, 'sql'), join(tmp, 'temporal-sql-tool'));
  mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another build finished first; its binaries are the same.
    rmSync(tmp, { recursive: true, force: true });
    if (!cachedBinaries(env)) throw err;
  }
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binariesIn(dir);
}

/**
 * Creates the default store's and visibility's databases when missing and
 * brings both schemas to the version embedded in this temporal-sql-tool
 * (`update-schema` is a no-op on a current schema, so this also upgrades).
 * `pg`: { host, port, user, password }.
 */
export function setupSchema(bins, pg, databases = { default: 'temporal', visibility: 'temporal_visibility' }) {
  const base = ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user];
  const env = { ...process.env, SQL_PASSWORD: pg.password ?? '' };
  const tool = (db, args, okIfFails = false) => {
    const out = spawnSync(bins.sqlTool, [...base, '--db', db, ...args], { encoding: 'utf8', env });
    if (out.status !== 0 && !okIfFails)
      throw new Error(`temporal-sql-tool --db ${db} ${args.join(' ')} failed:\n${out.stderr || out.stdout}`);
    return out.status === 0;
  };
  for (const [db, schema] of [
    [databases.default, 'postgresql/v12/temporal'],
    [databases.visibility, 'postgresql/v12/visibility'],
  ]) {
    // Both fail harmlessly on a database set up before: it exists, and so does its version table.
    tool(db, ['create-database'], true);
    tool(db, ['setup-schema', '-v', '0.0'], true);
    tool(db, ['update-schema', '--schema-name', schema]);
  }
}

/**
 * A port nobody listens on right now on 127.0.0.1, below 32768: the server
 * records its services' ports in a SMALLINT column of its cluster_membership
 * table, so the kernel's own picks (32768 and up) make it exit at start.
 */
export async function freePort() {
  for (let tries = 0; ; tries++) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    const free = await new Promise((resolveFree) => {
      const server = createServer();
      server.once('error', () => resolveFree(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
    });
    if (free) return port;
    if (tries > 100) throw new Error('found no free port below 32768 on 127.0.0.1');
  }
}

/** The nine ports one server process listens on: the frontend's given, the others free ones. */
export async function serverPorts(frontend) {
  const ports = { frontend: frontend ?? (await freePort()) };
  for (const name of [
    'frontendHttp',
    'frontendMembership',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
  ]) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[name] = port;
  }
  return ports;
}

/**
 * The server's config file: all four services in one process, bound to
 * 127.0.0.1, the default store and visibility on PostgreSQL (postgres12
 * plugin), no metrics or pprof listeners, and a dynamic config file beside it.
 * Each service keeps pools of its own, so 4 x (10 + 5) connections stay
 * under PostgreSQL's default max_connections of 100.
 */
export function renderConfig({ pg, ports, databases, dynamicConfigFile }) {
  const dbs = databases ?? { default: 'temporal', visibility: 'temporal_visibility' };
  const store = (db, conns) => `      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: "${pg.user}"
        password: "${pg.password ?? ''}"
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const service = (grpc, membership, http) => `    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
${store(dbs.default, 10)}
    postgres-visibility:
${store(dbs.visibility, 5)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:
${service(ports.history, ports.historyMembership)}
  matching:
${service(ports.matching, ports.matchingMembership)}
  worker:
${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "${dynamicConfigFile}"
  pollInterval: "10s"
`;
}

/**
 * Dynamic config: search attributes added a moment ago are seen at once
 * rather than after the frontend's cache refresh (up to a minute), so a run
 * started right after the namespace is set up can write them.
 */
export const DYNAMIC_CONFIG = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`;

/** Writes `config.yaml` and `dynamic-config.yaml` into `dir`; returns the config file's path. */
export function writeConfig(dir, opts) {
  mkdirSync(dir, { recursive: true });
  const dynamicConfigFile = join(dir, 'dynamic-config.yaml');
  writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, renderConfig({ ...opts, dynamicConfigFile }));
  return file;
}

/** Starts `temporal-server start` on a config file; the caller waits for the frontend and stops the child. */
export function spawnServer(bins, configFile, { stdio = 'inherit' } = {}) {
  return spawn(bins.server, ['--config-file', configFile, '--allow-no-auth', 'start'], { stdio });
}

/**
 * The namespace (7 days of history after a run closes) and Leviath's search
 * attributes, through the SDK's connection; each step is skipped when done before.
 */
export async function prepareNamespace(address, namespace = 'default') {
  const { Connection } = await import('@temporalio/client');
  const proto = (await import('@temporalio/proto')).default;
  const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  const connection = await Connection.connect({ address });
  try {
    const service = connection.workflowService;
    const known = await service.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
    if (!known)
      await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: 7 * 24 * 3600 } });
    // The frontend learns of a new namespace at its registry's next refresh (about 10 s): until
    // then every call in it, this one included, is NOT_FOUND.
    const { customAttributes } = await untilFound(() => connection.operatorService.listSearchAttributes({ namespace }));
    const missing = SEARCH_ATTRIBUTES.filter((name) => !(name in (customAttributes ?? {})));
    if (missing.length > 0)
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
      });
  } finally {
    await connection.close();
  }
}

/** `call()`'s answer once it stops failing with NOT_FOUND (gRPC status 5), within a minute. */
async function untilFound(call) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (err?.code !== 5 || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Waits until the frontend answers at `address` or the child exits. */
export async function waitForFrontend(address, child, timeoutMs = 120_000) {
  const { Connection } = await import('@temporalio/client');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`temporal-server exited with ${child.exitCode ?? child.signalCode} while starting`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`temporal-server did not answer at ${address} within ${timeoutMs / 1000} s`);
}

function flag(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args) {
  const log = (line) => process.stderr.write(`temporal-server: ${line}\n`);
  const bins = ensureTemporalServer({ log });
  if (args[0] === undefined || args[0] === 'build') {
    process.stdout.write(`${bins.dir}\n`);
    return;
  }
  if (args[0] !== 'start') throw new Error(`unknown command ${args[0]}; use build or start`);
  const url = flag(args, '--postgres');
  if (!url) throw new Error('start needs --postgres postgres://USER:PASSWORD@HOST:PORT');
  const parsed = new URL(url);
  const pg = {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
  setupSchema(bins, pg);
  const ports = await serverPorts(Number(flag(args, '--port') ?? 7233));
  const config = writeConfig(resolve(flag(args, '--dir') ?? join(bins.dir, 'run')), { pg, ports });
  const child = spawnServer(bins, config);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill('SIGTERM'));
  const address = `127.0.0.1:${ports.frontend}`;
  await waitForFrontend(address, child);
  await prepareNamespace(address);
  log(`serving at ${address} (namespace default, Leviath's search attributes); Ctrl-C stops it`);
  child.once('exit', (code) => process.exit(code ?? 0));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`temporal-server: ${err.message}\n`);
    process.exit(1);
  });
}
