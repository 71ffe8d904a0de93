/**
 * docker-compose.yml cannot run here (no Docker engine), so its shape is
 * checked instead: the services exist, every image is pinned to a tag its
 * registry publishes, schemas are set up by one-shot jobs instead of the
 * server, services restart, workers run unprivileged with a healthcheck, and
 * every Leviath process shares the compose PostgreSQL as its blob store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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

/** Tags these images publish (checked against their registry pages and the official compose files). */
const PUBLISHED: Record<string, RegExp> = {
  'temporalio/server': /^1\.29\.1$/,
  'temporalio/admin-tools': /^1\.29\.1-tctl-1\.18\.4-cli-1\.5\.0$/,
  'temporalio/ui': /^2\.34\.0$/,
  postgres: /^16\.4-bookworm$/,
};

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
    expect(script).toContain('update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned');
    expect(script).toContain('visibility/versioned');
    expect(script).toMatch(/temporal temporal_visibility leviath_blobs; do tool --db \$\$db create-database/);
    expect(dependsOn(services.temporal!)['temporal-schema']?.condition).toBe('service_completed_successfully');
    expect(dependsOn(services.worker!)['temporal-setup']?.condition).toBe('service_completed_successfully');
    const setup = JSON.stringify(services['temporal-setup']?.command);
    expect(setup).toContain('namespace create --namespace default');
    for (const attribute of ['LeviathBlueprint', 'LeviathStage', 'LeviathStatus', 'LeviathParent', 'LeviathForkOf'])
      expect(setup).toContain(attribute);
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

  it('keeps a tool worker for ./workspace on a queue named for the workdir, which a replacement container serves too', () => {
    const tools = services['tool-worker']!;
    expect(tools.restart).toBe('unless-stopped');
    expect(tools.user).toBe('node');
    expect(tools.image).toBe(services.worker?.image);
    expect(tools.command).toEqual([
      'worker',
      '--tools',
      '--workdir',
      '/workspace',
      '--task-queue',
      'leviath-tools-workspace',
    ]);
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
