/**
 * Pushed blueprints in the PostgreSQL the tests start (docs/reference/cluster-runs.md#the-store):
 * chosen whenever the blob store is PostgreSQL, shared by every process that points at it
 * whatever its Leviath home, numbered without gaps or doubles when pushes race, sealed with the
 * codec key, and left alone by `lev blobs gc`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectBlobs } from '../../src/blobs/gc.js';
import { PostgresBlobStore } from '../../src/blobs/postgres.js';
import { openBlueprintStore } from '../../src/blueprints-store/configured.js';
import { PostgresBlueprintStore } from '../../src/blueprints-store/pg-blueprints.js';
import { blueprintHash, FolderBlueprintStore } from '../../src/blueprints-store/pushed-blueprints.js';
import { runInputFromRef } from '../../src/blueprints-store/run-input.js';
import { parseKeyFile } from '../../src/codec/keys.js';
import { isLevError } from '../../src/errors.js';
import { startTestPg, type TestPg } from '../blobs/pg-server.js';
import { loadToml } from '../blueprint/helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-pg-blueprints-'));
let db: TestPg;
beforeAll(async () => {
  db = await startTestPg();
}, 60_000);
afterAll(async () => {
  await db?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const demo = loadToml('[agent]\nname = "demo"\n[stages.main]\n').blueprint!;
const later = loadToml('[agent]\nname = "demo"\n[stages.main]\nmax_iterations = 9\n').blueprint!;

/** The environment of a process with a home of its own, pointed at the shared database. */
function processEnv(name: string): NodeJS.ProcessEnv {
  return {
    LEVIATH_HOME: join(scratch, name),
    LEVIATH_BLOBS: db.url,
    LEVIATH_CONFIG: join(scratch, 'no-config.toml'),
  };
}

describe('pushed blueprints when the blob store is PostgreSQL', () => {
  it('are pushed by one process and resolved by another with another home, as demo@N', async () => {
    const pusherEnv = processEnv('pusher');
    const pusher = openBlueprintStore(pusherEnv);
    const worker = openBlueprintStore(processEnv('worker'));
    try {
      expect(pusher).toBeInstanceOf(PostgresBlueprintStore);
      expect(await pusher.push('shared', demo, '/src/demo')).toMatchObject({ version: 1, created: true });
      expect(await pusher.push('shared', demo, '/src/demo')).toMatchObject({ version: 1, created: false });
      expect(await pusher.push('shared', later, '/src/demo')).toMatchObject({
        version: 2,
        hash: blueprintHash(later),
        created: true,
      });
      // A worker resolves what was pushed elsewhere: no folder of either home holds it.
      expect((await worker.resolve('shared@1')).bp).toEqual(demo);
      expect((await worker.resolve('shared')).version).toMatchObject({ version: 2, source: '/src/demo' });
      const input = await runInputFromRef(
        worker,
        { blueprint: 'shared@2', workdir: '/w', toolQueue: 'q' },
        'host-b',
        pusherEnv,
      );
      expect(input.blueprint).toEqual(later);
      expect((await worker.names()).map((v) => `${v.name}@${v.version}`)).toContain('shared@2');
      expect((await worker.versions('shared')).map((v) => v.version)).toEqual([1, 2]);
      expect(existsSync(join(scratch, 'pusher', 'blueprints'))).toBe(false);
      const refused = await worker.resolve('shared@3').catch((err: unknown) => err);
      expect(isLevError(refused) && refused.code).toBe('blueprint-ref-unknown');
      expect(String(refused)).toMatch(/has versions 1 to 2/);
    } finally {
      await pusher.close();
      await worker.close();
    }
  });

  it('numbers racing pushes of one name without gaps or doubles', async () => {
    const stores = Array.from({ length: 4 }, () => new PostgresBlueprintStore(db.url));
    try {
      const variants = Array.from(
        { length: 8 },
        (_, i) => loadToml(`[agent]\nname = "race"\n[stages.main]\nmax_iterations = ${i + 1}\n`).blueprint!,
      );
      const pushed = await Promise.all(
        variants.map((bp, i) => (stores[i % stores.length] as PostgresBlueprintStore).push('race', bp, `/src/${i}`)),
      );
      expect(pushed.map((p) => p.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(pushed.every((p) => p.created)).toBe(true);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('keeps bodies sealed with the codec key, and lev blobs gc leaves them', async () => {
    const keys = parseKeyFile(`k1 ${randomBytes(32).toString('base64')}`, 'keys');
    const sealed = new PostgresBlueprintStore(db.url, { keys });
    const secretive = loadToml('[agent]\nname = "secretive"\n[stages.main]\nsystem_prompt = "ACME-7781 payroll"\n')
      .blueprint!;
    try {
      const { hash } = await sealed.push('secretive', secretive, '/src/s');
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      const { rows } = await c.query<{ body: Buffer }>('SELECT body FROM leviath_blueprints WHERE hash = $1', [hash]);
      await c.end();
      expect(rows[0]?.body.toString('latin1')).not.toContain('ACME-7781');
      expect((await sealed.resolve('secretive@1')).bp).toEqual(secretive);

      const blobs = new PostgresBlobStore(db.url);
      try {
        await blobs.put('a blob no run knows');
        await collectBlobs(blobs, { olderThanMs: 0, knownRuns: async () => new Set() });
      } finally {
        await blobs.close();
      }
      expect((await sealed.resolve('secretive')).bp).toEqual(secretive);
    } finally {
      await sealed.close();
    }
  });

  it('are kept in the folder under the home when the blob store is local', async () => {
    const store = openBlueprintStore({ LEVIATH_HOME: join(scratch, 'alone'), LEVIATH_CONFIG: join(scratch, 'none') });
    expect(store).toBeInstanceOf(FolderBlueprintStore);
    expect(store.where).toBe(join(scratch, 'alone', 'blueprints'));
    await store.close();
  });
});
