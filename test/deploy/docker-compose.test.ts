/**
 * docker-compose.yml cannot run here (no Docker engine), so its shape is
 * checked instead: the services exist, every image is pinned, the worker
 * can be scaled and finds the server through the environment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  ports?: string[];
  container_name?: string;
  command?: string[] | string;
}

const root = join(import.meta.dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL, the Web UI and a Leviath worker', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'worker']));
    expect(services.temporal?.environment?.DB).toMatch(/^postgres/);
    expect(services.temporal?.environment?.POSTGRES_SEEDS).toBe('postgresql');
    expect(Object.keys(services.temporal?.depends_on ?? {})).toContain('postgresql');
  });

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.image, `${name} has an image`).toBeTruthy();
      const tag = service.image!.split(':')[1];
      expect(tag, `${name} image ${service.image} is pinned`).toMatch(/^\d+(\.\d+)+/);
      expect(service.image).not.toMatch(/:latest$/);
    }
  });

  it('passes the server address to the UI and the workers by environment', () => {
    expect(services['temporal-ui']?.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(services.worker?.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('runs `lev worker` in a service that can be scaled', () => {
    const worker = services.worker!;
    expect(worker.command).toEqual(['worker']);
    expect(worker.build).toBe('.');
    // A fixed name or a published port would make `--scale worker=N` collide.
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/lev.mjs"\]/);
  });

  it('registers the search attributes the runtime writes', () => {
    const setup = JSON.stringify(services['temporal-setup']?.command);
    for (const attribute of ['LeviathBlueprint', 'LeviathStage', 'LeviathStatus']) expect(setup).toContain(attribute);
  });

  it('never writes provider keys into the file', () => {
    for (const value of Object.values(services.worker?.environment ?? {}))
      expect(value).toMatch(/^\$\{[A-Z_]+:-\}$|^[^$]*$/);
    expect(services.worker?.environment?.OPENAI_API_KEY).toBe(`\${OPENAI_API_KEY:-}`);
  });
});
