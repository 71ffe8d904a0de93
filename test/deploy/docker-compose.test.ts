/**
 * docker-compose.yml cannot run here (no Docker engine), so it is loaded the
 * way Docker Compose loads it, by compose-go (scripts/compose-config.mjs), and
 * its shape is checked: the services exist, every image is pinned to a tag its
 * registry publishes (Leviath's to package.json's version, Temporal's to the
 * version the real-server tests build from source), schemas are set up by
 * one-shot jobs instead of the server, every published port is on loopback
 * unless the operator says otherwise, the Web UI takes its sign-in and
 * read-only settings from the environment, services restart and have a health
 * check the services after them wait for, workers run unprivileged, every
 * Leviath process shares the compose PostgreSQL as its blob store and the
 * codec key secret, the metrics and OpenTelemetry settings reach the workers,
 * the containers that run commands get what bubblewrap needs, and the
 * monitoring profile scrapes the workers and loads the repository's dashboard.
 * The raw file is read too, for what Compose's model no longer shows
 * (`${VAR:-default}` as written).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type ComposeModel, ensureComposeConfig, loadCompose } from '../../scripts/compose-config.mjs';
import { serverVersion } from '../../scripts/temporal-server.mjs';
import { parseBlobSpec } from '../../src/blobs/index.js';
import { metricsAddress } from '../../src/cli/options.js';
import { tracingWanted } from '../../src/telemetry/tracing.js';

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
const composeFile = join(root, 'docker-compose.yml');
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
  'prom/prometheus': /^v3\.5\.0$/,
  'grafana/grafana': /^12\.1\.1$/,
};
/** What Leviath's own image is tagged: the package's version. */
const VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
const PROFILES = ['cli', 'monitoring'];

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

/** A service as compose-go's model has it: defaults filled in, variables interpolated, short forms expanded. */
interface Loaded {
  image?: string;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
  secrets?: { source: string; target: string }[];
  security_opt?: string[];
  cap_add?: string[];
  privileged?: boolean;
  volumes?: { type: string; source: string; target: string; read_only?: boolean }[];
  command?: string[] | null;
}

let binary: string;
// Built once and cached outside the clone (CI builds it in .ci/run before the tests); a minute the first time.
beforeAll(() => {
  binary = ensureComposeConfig({ log: (line) => process.stderr.write(`${line}\n`) });
}, 600_000);

type Model = ComposeModel & { services: Record<string, Loaded> };
const loads = new Map<string, Model>();

/** docker-compose.yml as `docker compose` would load it with these profiles, in an environment of only `env`. */
function load({ profiles = [], env = {} }: { profiles?: string[]; env?: Record<string, string> } = {}): Model {
  const key = JSON.stringify([profiles, env]);
  const cached = loads.get(key);
  if (cached) return cached;
  const loaded = loadCompose(composeFile, { profiles, env, binary });
  if (loaded.error !== undefined) throw new Error(loaded.error);
  loads.set(key, loaded.model as Model);
  return loaded.model as Model;
}

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL, the Web UI and a Leviath worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgresql', 'temporal-schema', 'temporal', 'temporal-setup', 'temporal-ui', 'worker']),
    );
    expect(services.temporal?.environment?.DB).toBe('postgres12');
    expect(services.temporal?.environment?.POSTGRES_SEEDS).toBe('postgresql');
  });

  it("pins every image to a tag its registry publishes, Leviath's to the package's version, and never uses auto-setup", () => {
    for (const [name, service] of Object.entries(load({ profiles: PROFILES }).services)) {
      const image = service.image as string;
      expect(image, `${name} has an image`).toBeTruthy();
      const [repo, tag] = image.split(':');
      expect(tag, `${name}: ${image}`).toMatch(
        repo === 'leviath/worker' ? new RegExp(`^${VERSION}$`) : (PUBLISHED[repo ?? ''] ?? /^$/),
      );
      expect(repo).not.toBe('temporalio/auto-setup');
    }
    // One home for the version: the tag is LEVIATH_VERSION, whose default this test keeps equal to package.json's.
    for (const name of ['worker', 'tool-worker', 'codec-server', 'lev'])
      expect(services[name]?.image, name).toBe(`leviath/worker:${variable('LEVIATH_VERSION', VERSION)}`);
    const pinned = load({ profiles: PROFILES, env: { LEVIATH_VERSION: '9.8.7' } }).services;
    expect(pinned['tool-worker']?.image).toBe('leviath/worker:9.8.7');
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

  it('publishes the frontend, the Web UI, its codec server, PostgreSQL and monitoring on loopback unless PUBLISH_IP says otherwise', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
    expect(published.map(([name]) => name).sort()).toEqual([
      'codec-server',
      'grafana',
      'postgresql',
      'prometheus',
      'temporal',
      'temporal-ui',
    ]);
    for (const [name, port] of published) {
      const parts = unset(port).split(':');
      expect(parts, `${name} publishes ${port} on an address`).toHaveLength(3);
      expect(parts[0], `${name}: ${port}`).toBe('127.0.0.1');
    }
    expect(services.temporal?.ports).toEqual([`${variable('PUBLISH_IP', '127.0.0.1')}:7233:7233`]);
    expect(services['temporal-ui']?.ports).toEqual([`${variable('PUBLISH_IP', '127.0.0.1')}:8233:8080`]);
    expect(services['codec-server']?.ports).toEqual([`${variable('PUBLISH_IP', '127.0.0.1')}:8888:8888`]);
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
    for (const name of [
      'postgresql',
      'temporal',
      'temporal-ui',
      'worker',
      'tool-worker',
      'codec-server',
      'prometheus',
      'grafana',
    ])
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

  it('runs `lev run` inside the network and the monitoring only on request (the cli and monitoring profiles)', () => {
    const lev = services.lev!;
    expect(lev.image).toBe(services.worker?.image);
    expect(lev.user).toBe('node');
    const onRequest: Record<string, string[]> = { lev: ['cli'], prometheus: ['monitoring'], grafana: ['monitoring'] };
    for (const [name, service] of Object.entries(services))
      expect(service.profiles, `${name}'s profiles`).toEqual(onRequest[name]);
    // What Compose starts without a profile, and with each.
    expect(Object.keys(load().services)).not.toEqual(expect.arrayContaining(['lev']));
    expect(Object.keys(load().services)).not.toContain('prometheus');
    expect(Object.keys(load({ profiles: ['monitoring'] }).services)).toEqual(
      expect.arrayContaining(['prometheus', 'grafana', 'worker']),
    );
  });

  it('never writes provider keys into the file', () => {
    for (const [key, value] of Object.entries(services.worker?.environment ?? {}))
      if (/_KEY$/.test(key)) expect(value).toBe(`\${${key}:-}`);
  });
});

describe('docker-compose.yml as Docker Compose loads it (compose-go)', () => {
  /** The services that run until stopped; the one-shot jobs (restart "no") end instead. */
  const longRunning = (model: Model) => Object.entries(model.services).filter(([, s]) => s.restart !== 'no');

  it('loads with no profile, with each, and with both', () => {
    for (const profiles of [[], ['cli'], ['monitoring'], PROFILES]) expect(load({ profiles }).name).toBe('leviath');
  });

  it('refuses what Compose refuses, so a load that passes means something', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-compose-'));
    try {
      const broken = join(dir, 'docker-compose.yml');
      writeFileSync(broken, 'services:\n  a:\n    image: x:1\n    secrets: [nowhere]\n');
      expect(loadCompose(broken, { binary }).error).toMatch(/undefined secret nowhere/);
      writeFileSync(broken, 'services:\n  a:\n    image: x:1\n    healthcheck:\n      tests: [CMD, "true"]\n');
      expect(loadCompose(broken, { binary }).error).toMatch(/tests/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives every long-running service a health check, and the services after them wait for it', () => {
    const model = load({ profiles: PROFILES });
    for (const [name, service] of longRunning(model)) {
      if (name === 'lev') continue; // a command run on request (`docker compose run`), not a service others wait for
      expect(service.healthcheck?.test?.length, `${name} has a health check`).toBeGreaterThan(1);
      expect(service.healthcheck?.disable, name).toBeFalsy();
    }
    const { services: s } = model;
    expect(s.temporal?.healthcheck?.test).toEqual([
      'CMD-SHELL',
      // $$ in the file is a literal $ for the container's shell.
      'wget -q -O /dev/null http://$(hostname):7243/api/v1/cluster-info',
    ]);
    expect(s['temporal-ui']?.healthcheck?.test).toEqual([
      'CMD-SHELL',
      'wget -q -O /dev/null http://$(hostname):8080/healthz',
    ]);
    expect(s.worker?.healthcheck?.test).toEqual(['CMD', 'node', 'bin/lev.mjs', 'worker', '--health']);
    // The tool worker's own command and workdir, so the check looks at the queue it polls.
    expect(s['tool-worker']?.healthcheck?.test).toEqual([
      'CMD',
      'node',
      'bin/lev.mjs',
      ...(s['tool-worker']?.command ?? []),
      '--health',
    ]);
    for (const [service, dependency] of [
      ['temporal-setup', 'temporal'],
      ['temporal-ui', 'temporal'],
      ['grafana', 'prometheus'],
    ] as const)
      expect(s[service]?.depends_on?.[dependency]?.condition, `${service} waits for ${dependency}`).toBe(
        'service_healthy',
      );
  });

  it('mounts the codec key secret into every Leviath container and points LEVIATH_CODEC_KEY_FILE at it', () => {
    const model = load({ profiles: PROFILES });
    expect(model.secrets?.codec_key?.file).toBe(join(root, 'codec.key'));
    expect(load({ env: { CODEC_KEY_FILE: '/etc/leviath/keys' } }).secrets?.codec_key?.file).toBe('/etc/leviath/keys');
    const leviath = Object.entries(model.services).filter(([, s]) => s.image?.startsWith('leviath/worker:'));
    expect(leviath.map(([name]) => name).sort()).toEqual(['codec-server', 'lev', 'tool-worker', 'worker']);
    for (const [name, service] of leviath) {
      expect(service.secrets, name).toEqual([{ source: 'codec_key', target: '/run/secrets/codec_key' }]);
      expect(service.environment?.LEVIATH_CODEC_KEY_FILE, name).toBe('/run/secrets/codec_key');
    }
    expect(model.services['codec-server']?.command).toEqual(['codec-server', '--listen', '0.0.0.0:8888']);
    expect(model.services['temporal-ui']?.environment?.TEMPORAL_CODEC_ENDPOINT).toBe('http://localhost:8888');
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toMatch(/^\/codec\.key$/m);
  });

  it('serves metrics from both workers where the monitoring profile scrapes them, and passes the OTLP endpoint through', () => {
    const { services: s } = load({ profiles: PROFILES, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' } });
    const prometheus = parse(readFileSync(join(root, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; type: string; port: number }[] }[];
    };
    const scraped = prometheus.scrape_configs.flatMap((job) => job.dns_sd_configs ?? []);
    for (const name of ['worker', 'tool-worker']) {
      const env = s[name]?.environment ?? {};
      const address = metricsAddress(undefined, env as NodeJS.ProcessEnv);
      expect(address, name).toBe('0.0.0.0:9464');
      expect(
        scraped.some((sd) => sd.names.includes(name) && sd.type === 'A' && sd.port === 9464),
        name,
      ).toBe(true);
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('http://collector:4318');
      expect(tracingWanted(env as NodeJS.ProcessEnv), name).toBe(true);
      expect(env.OTEL_SERVICE_NAME, name).toBe(`leviath-${name}`);
    }
    // Unset on the host, no traces are sent.
    expect(tracingWanted(load().services.worker?.environment as NodeJS.ProcessEnv)).toBe(false);
  });

  it('gives the containers that run commands what bubblewrap needs, and nothing more', () => {
    const { services: s } = load({ profiles: PROFILES });
    const sandbox = ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'];
    for (const name of ['tool-worker', 'lev']) expect(s[name]?.security_opt, name).toEqual(sandbox);
    for (const [name, service] of Object.entries(s)) {
      if (name !== 'tool-worker' && name !== 'lev') expect(service.security_opt, name).toBeUndefined();
      expect(service.cap_add, name).toBeUndefined();
      expect(service.privileged, name).toBeFalsy();
    }
  });

  it("loads the repository's dashboard in the monitoring profile's Grafana, on its Prometheus", () => {
    const { services: s } = load({ profiles: ['monitoring'] });
    const grafana = s.grafana!;
    const mounted = (target: string) => grafana.volumes?.find((v) => v.target === target);
    const dashboard = mounted('/etc/grafana/dashboards/leviath-dashboard.json');
    expect(dashboard?.source).toBe(join(root, 'deploy', 'grafana', 'leviath-dashboard.json'));
    expect(existsSync(dashboard?.source ?? '')).toBe(true);
    const provisioning = mounted('/etc/grafana/provisioning')?.source ?? '';
    const providers = parse(readFileSync(join(provisioning, 'dashboards', 'leviath.yml'), 'utf8')) as {
      providers: { type: string; options: { path: string } }[];
    };
    expect(providers.providers).toEqual([
      expect.objectContaining({ type: 'file', options: { path: '/etc/grafana/dashboards' } }),
    ]);
    const sources = parse(readFileSync(join(provisioning, 'datasources', 'prometheus.yml'), 'utf8')) as {
      datasources: { type: string; url: string; isDefault: boolean }[];
    };
    expect(sources.datasources).toEqual([
      expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true }),
    ]);
    // The dashboard picks its data source through a variable of that type.
    const json = JSON.parse(readFileSync(dashboard?.source ?? '', 'utf8')) as {
      templating: { list: { type: string; query: string }[] };
    };
    expect(json.templating.list).toContainEqual(expect.objectContaining({ type: 'datasource', query: 'prometheus' }));
    const config = s.prometheus?.volumes?.find((v) => v.target === '/etc/prometheus/prometheus.yml');
    expect(config?.source).toBe(join(root, 'deploy', 'prometheus', 'prometheus.yml'));
  });
});
