/**
 * docker-compose.yml cannot run here (no Docker engine), so its shape is
 * checked instead: the services exist, every image is pinned to a tag its
 * registry publishes, Temporal's at the version the real-server tests build
 * from source, schemas are set up by one-shot jobs instead of the server,
 * every published port is on loopback unless the operator says otherwise,
 * the Web UI takes its sign-in and read-only settings from the environment,
 * services restart, workers run unprivileged with a healthcheck, and every
 * Leviath process shares the compose PostgreSQL as its blob store.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serverVersion } from '../../scripts/temporal-server.mjs';
import { parseBlobSpec } from '../../src/blobs/index.js';

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  ports?: string[];
  container_name?: string;
  command?: string[] | string;
  entrypoint?: string[];
  restart?: string;
  user?: string;
  profiles?: string[];
  healthcheck?: { test: string[] };
  volumes?: string[];
}

const root = join(import.meta.dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The server version deploy/temporal-server/go.mod builds, which CI runs the real-server tests on. */
const SERVER = serverVersion();

/**
 * Tags these images publish: since 1.30 Temporal tags the server and admin-tools images with the
 * server version alone (temporalio/samples-server's compose files); the UI is the one the Temporal
 * CLI the dev server runs bundles (2.54.1 with CLI 1.9).
 */
const PUBLISHED: Record<string, RegExp> = {
  'temporalio/server': new RegExp(`^${SERVER.replaceAll('.', '\\.')}$`),
  'temporalio/admin-tools': new RegExp(`^${SERVER.replaceAll('.', '\\.')}$`),
  'temporalio/ui': /^2\.54\.1$/,
  postgres: /^16\.4-bookworm$/,
};

/** Compose's `${NAME:-fallback}`: the variable's value, or the fallback when it is not set. */
function variable(name: string, fallback = ''): string {
  return `\${${name}:-${fallback}}`;
}

/** What compose makes of `${NAME:-default}` when NAME is not set. */
function unset(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

function dependsOn(service: Service): Record<string, { condition: string }> {
  const deps = service.depends_on ?? {};
  return Array.isArray(deps) ? Object.fromEntries(deps.map((d) => [d, { condition: 'service_started' }])) : deps;
}

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL, the Web UI and a Leviath worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal-schema', 'temporal', 'temporal-setup', 'temporal-ui', 'worker']),
    );
    expect(services.temporal?.environment?.DB).toBe('postgres12');
    expect(services.temporal?.environment?.POSTGRES_SEEDS).toBe('postgresql');
  });

  it('pins every image to a tag its registry publishes, and never uses auto-setup', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.image, `${name} has an image`).toBeTruthy();
      const [repo, tag] = (service.image ?? '').split(':');
      expect(tag, `${name} image ${service.image} is pinned`).toMatch(/^\d+(\.\d+)+/);
      if (repo !== 'leviath/worker') expect(tag, `${name}: ${service.image}`).toMatch(PUBLISHED[repo ?? ''] ?? /^$/);
      expect(repo).not.toBe('temporalio/auto-setup');
    }
  });

  it('sets up schemas in one-shot jobs the server and the workers wait for', () => {
    const schema = services['temporal-schema']!;
    expect(schema.restart).toBe('no');
    const script = JSON.stringify(schema.command);
    // The schemas embedded in temporal-sql-tool, as scripts/temporal-server.mjs sets them up in CI.
    expect(script).toContain('--db temporal update-schema --schema-name postgresql/v12/temporal;');
    expect(script).toContain('--db temporal_visibility update-schema --schema-name postgresql/v12/visibility');
    expect(script).toMatch(/temporal temporal_visibility leviath_blobs; do tool --db \$\$db create-database/);
    expect(dependsOn(services.temporal!)['temporal-schema']?.condition).toBe('service_completed_successfully');
    expect(dependsOn(services.worker!)['temporal-setup']?.condition).toBe('service_completed_successfully');
    const setup = JSON.stringify(services['temporal-setup']?.command);
    expect(setup).toContain('namespace create --namespace default');
    for (const attribute of ['LeviathBlueprint', 'LeviathStage', 'LeviathStatus', 'LeviathParent', 'LeviathForkOf'])
      expect(setup).toContain(attribute);
  });

  it('runs the Temporal server version the real-server tests build, with a dynamic config file it can read', () => {
    expect(SERVER).toMatch(/^1\.32\.\d+$/);
    for (const name of ['temporal', 'temporal-schema', 'temporal-setup'])
      expect(services[name]?.image?.split(':')[1], name).toBe(SERVER);
    const temporal = services.temporal!;
    const [host, inside] = (temporal.volumes?.[0] ?? '').split(':');
    expect(existsSync(join(root, host ?? ''))).toBe(true);
    expect(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH).toBe(inside);
  });

  it('publishes the frontend, the Web UI and PostgreSQL on loopback unless PUBLISH_IP says otherwise', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
    expect(published.map(([name]) => name).sort()).toEqual(['postgresql', 'temporal', 'temporal-ui']);
    for (const [name, port] of published) {
      const parts = unset(port).split(':');
      expect(parts, `${name} publishes ${port} on an address`).toHaveLength(3);
      expect(parts[0], `${name}: ${port}`).toBe('127.0.0.1');
    }
    expect(services.temporal?.ports).toEqual([`${variable('PUBLISH_IP', '127.0.0.1')}:7233:7233`]);
    expect(services['temporal-ui']?.ports).toEqual([`${variable('PUBLISH_IP', '127.0.0.1')}:8233:8080`]);
  });

  it("passes the Web UI's OIDC sign-in and read-only switch through from the environment, off by default", () => {
    const env = services['temporal-ui']?.environment ?? {};
    expect(env.TEMPORAL_AUTH_TYPE).toBe('oidc');
    for (const key of [
      'TEMPORAL_AUTH_PROVIDER_URL',
      'TEMPORAL_AUTH_ISSUER_URL',
      'TEMPORAL_AUTH_CLIENT_ID',
      'TEMPORAL_AUTH_CLIENT_SECRET',
      'TEMPORAL_AUTH_CALLBACK_URL',
    ])
      expect(env[key], key).toBe(variable(key));
    expect(unset(env.TEMPORAL_AUTH_ENABLED ?? '')).toBe('false');
    expect(env.TEMPORAL_AUTH_ENABLED).toBe(variable('TEMPORAL_AUTH_ENABLED', 'false'));
    expect(env.TEMPORAL_DISABLE_WRITE_ACTIONS).toBe(variable('TEMPORAL_DISABLE_WRITE_ACTIONS', 'false'));
    expect(unset(env.TEMPORAL_AUTH_SCOPES ?? '')).toBe('openid,profile,email');
  });

  it('restarts long-running services and runs the one-shot jobs once', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'worker'])
      expect(services[name]?.restart, name).toBe('unless-stopped');
    for (const name of ['temporal-schema', 'temporal-setup']) expect(services[name]?.restart, name).toBe('no');
  });

  it('runs `lev worker` unprivileged in a service that can be scaled, with a health check', () => {
    const worker = services.worker!;
    expect(worker.command).toEqual(['worker']);
    expect(worker.build).toBe('.');
    expect(worker.user).toBe('node');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/lev.mjs"\]/);
    expect(worker.healthcheck?.test).toEqual(['CMD', 'node', 'bin/lev.mjs', 'worker', '--health']);
    // A fixed name or a published port would make `--scale worker=N` collide.
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
  });

  it("keeps a tool worker for ./workspace on the queue of the workspace's identity, which a replacement container serves too", () => {
    const tools = services['tool-worker']!;
    expect(tools.restart).toBe('unless-stopped');
    expect(tools.user).toBe('node');
    expect(tools.image).toBe(services.worker?.image);
    // No --task-queue: the queue is read from ./workspace/.leviath/workdir-id, the same for every container.
    expect(tools.command).toEqual(['worker', '--tools', '--workdir', '/workspace']);
    expect(tools.container_name).toBeUndefined();
    // `lev run --workdir /workspace` inside the network sees the same files the tool worker serves.
    expect(tools.volumes).toContain('./workspace:/workspace');
    expect(services.lev?.volumes).toContain('./workspace:/workspace');
    expect(dependsOn(tools)['temporal-setup']?.condition).toBe('service_completed_successfully');
  });

  it('gives every Leviath process the compose PostgreSQL as its shared blob store, in its own database', () => {
    for (const name of ['worker', 'lev']) {
      const env = services[name]?.environment ?? {};
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      const spec = parseBlobSpec(env.LEVIATH_BLOBS, '/unused');
      expect(spec).toMatchObject({ kind: 'postgres' });
      const url = new URL(spec.kind === 'postgres' ? spec.url.replace(/\$\{POSTGRES_PASSWORD:-temporal\}/, 'pw') : '');
      expect(url.hostname).toBe('postgresql');
      expect(url.pathname).toBe('/leviath_blobs');
    }
    // The host reaches the same store on loopback only.
    expect(services.postgresql?.ports).toEqual(['127.0.0.1:5432:5432']);
  });

  it('runs `lev run` inside the network only on request (the cli profile)', () => {
    const lev = services.lev!;
    expect(lev.profiles).toEqual(['cli']);
    expect(lev.image).toBe(services.worker?.image);
    expect(lev.user).toBe('node');
    for (const [name, service] of Object.entries(services))
      if (name !== 'lev') expect(service.profiles, `${name} starts by default`).toBeUndefined();
  });

  it('never writes provider keys into the file', () => {
    for (const [key, value] of Object.entries(services.worker?.environment ?? {}))
      if (/_KEY$/.test(key)) expect(value).toBe(`\${${key}:-}`);
  });
});
