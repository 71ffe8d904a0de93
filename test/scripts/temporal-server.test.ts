/**
 * scripts/temporal-server.mjs without building anything (the real-server
 * integration tests run what it builds): the version comes from the Go
 * module, the cache is keyed by version and go.sum outside the clone, a
 * machine without Go gets an error that says what to install, and the config
 * puts both stores on PostgreSQL and every service on loopback
 * (docs/cluster.md#the-real-server-from-source).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  cacheDir,
  ensureTemporalServer,
  MODULE_DIR,
  renderConfig,
  SEARCH_ATTRIBUTES,
  serverPorts,
  serverVersion,
} from '../../scripts/temporal-server.mjs';
import { SEARCH_ATTRIBUTES as DEV_SERVER_ATTRIBUTES } from '../../src/devserver/dev-server.js';

describe('the Temporal server built from source', () => {
  it('is the v1.32 release the Go module requires', () => {
    expect(serverVersion()).toMatch(/^1\.32\.\d+$/);
    expect(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8')).toMatch(
      /tool \(\n\tgo\.temporal\.io\/server\/cmd\/server\n\tgo\.temporal\.io\/server\/cmd\/tools\/sql\n\)/,
    );
  });

  it('is cached outside the clone, under a name that changes with the version and go.sum', () => {
    const dir = cacheDir({ XDG_CACHE_HOME: '/var/cache/x' });
    expect(dir).toMatch(new RegExp(`^/var/cache/x/leviath/temporal-server-${serverVersion()}-[0-9a-f]{12}$`));
    expect(cacheDir({})).toMatch(new RegExp(`^${join(homedir(), '.cache', 'leviath')}/`));
    const copy = mkdtempSync(join(tmpdir(), 'lev-go-module-'));
    cpSync(MODULE_DIR, copy, { recursive: true });
    writeFileSync(join(copy, 'go.sum'), `${readFileSync(join(copy, 'go.sum'), 'utf8')}\n`);
    expect(cacheDir({ XDG_CACHE_HOME: '/var/cache/x' }, copy)).not.toBe(dir);
  });

  it('fails without Go, saying what to install, when nothing is cached', () => {
    const env = { PATH: '/nonexistent', XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'lev-no-cache-')) };
    expect(() => ensureTemporalServer({ env })).toThrow(/Go is not installed.*Go 1\.21 or newer/);
  });

  it('adds the search attributes the dev server gets', () => {
    expect(SEARCH_ATTRIBUTES).toEqual(Object.keys(DEV_SERVER_ATTRIBUTES));
  });

  it('writes a config with both stores on PostgreSQL and every service on loopback', async () => {
    const ports = await serverPorts();
    expect(new Set(Object.values(ports)).size).toBe(9);
    // The server keeps its ports in a SMALLINT column.
    for (const port of Object.values(ports)) expect(port).toBeLessThan(32768);
    const pg = { host: '127.0.0.1', port: 5433, user: 'leviath', password: 'pw' };
    const config = parse(renderConfig({ pg, ports, dynamicConfigFile: '/tmp/dc.yaml' }));
    const stores = config.persistence.datastores;
    expect(stores['postgres-default'].sql).toMatchObject({
      pluginName: 'postgres12',
      databaseName: 'temporal',
      connectAddr: '127.0.0.1:5433',
      user: 'leviath',
      password: 'pw',
    });
    expect(stores['postgres-visibility'].sql).toMatchObject({ databaseName: 'temporal_visibility' });
    expect(config.persistence.visibilityStore).toBe('postgres-visibility');
    for (const service of ['frontend', 'history', 'matching', 'worker'])
      expect(config.services[service].rpc.bindOnLocalHost, service).toBe(true);
    expect(config.services.frontend.rpc.grpcPort).toBe(ports.frontend);
    expect(config.clusterMetadata.clusterInformation.active.rpcAddress).toBe(`127.0.0.1:${ports.frontend}`);
    expect(config.dynamicConfigClient.filepath).toBe('/tmp/dc.yaml');
  });
});
