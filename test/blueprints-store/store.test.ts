/**
 * The store of pushed blueprints (docs/reference/cluster-runs.md#blueprints-by-reference):
 * versions by name, content-addressed objects, references, and run inputs
 * by reference made whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueprintHash, FolderBlueprintStore, parseRef } from '../../src/blueprints-store/pushed-blueprints.js';
import { checkRefInput, isStoredRef, runInputFromRef } from '../../src/blueprints-store/run-input.js';
import { isLevError } from '../../src/errors.js';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { isRefInput } from '../../src/runtime/ref-input.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { loadToml } from '../blueprint/helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-bp-store-'));
const NO_CONFIG = { LEVIATH_CONFIG: join(scratch, 'no-config.toml') };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function code(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a coded error');
}

// Loaded once each: a blueprint holds the folder it was loaded from, which is part of its hash.
const first = loadToml('[agent]\nname = "demo"\n[stages.main]\n').blueprint!;
const second = loadToml('[agent]\nname = "demo"\n[stages.main]\nmax_iterations = 7\n').blueprint!;
const one = () => first;
const two = () => second;

describe('the folder store', () => {
  it('numbers the versions of a name from 1, and takes none for an unchanged push', async () => {
    const store = new FolderBlueprintStore(join(scratch, 'versions'));
    const first = await store.push('demo', one(), '/src/demo');
    expect(first).toMatchObject({ name: 'demo', version: 1, hash: blueprintHash(one()), created: true });
    expect(await store.push('demo', one(), '/src/demo')).toMatchObject({ version: 1, created: false });
    expect(await store.push('demo', two(), '/src/demo')).toMatchObject({ version: 2, created: true });
    expect((await store.versions('demo')).map((v) => v.version)).toEqual([1, 2]);
    expect(await store.push('other', one(), '/src/demo')).toMatchObject({
      name: 'other',
      version: 1,
      hash: first.hash,
    });
    expect((await store.names()).map((v) => `${v.name}@${v.version}`)).toEqual(['demo@2', 'other@1']);
  });

  it('resolves name@version to that version and the name alone to the latest', async () => {
    const store = new FolderBlueprintStore(join(scratch, 'resolve'));
    await store.push('demo', one(), '/a');
    await store.push('demo', two(), '/a');
    expect((await store.resolve('demo@1')).bp).toEqual(one());
    expect((await store.resolve('demo')).version.version).toBe(2);
    expect((await store.resolve('demo')).bp.stages[0]?.maxIterations).toBe(7);
  });

  it('refuses a malformed name or reference, and one that names nothing', async () => {
    const store = new FolderBlueprintStore(join(scratch, 'refuse'));
    await store.push('demo', one(), '/a');
    expect(await code(() => parseRef('demo@latest'))).toBe('blueprint-ref-bad');
    expect(await code(() => parseRef('demo@0'))).toBe('blueprint-ref-bad');
    expect(await code(() => store.push('../escape', one(), '/a'))).toBe('blueprint-ref-bad');
    expect(await code(() => store.resolve('demo@2'))).toBe('blueprint-ref-unknown');
    expect(await code(() => store.resolve('nothing'))).toBe('blueprint-ref-unknown');
    await expect(store.resolve('demo@2')).rejects.toThrow(/has versions 1 to 1/);
  });
});

describe('a run input by reference', () => {
  const store = new FolderBlueprintStore(join(scratch, 'inputs'));
  beforeAll(() => store.push('demo', one(), '/a'));

  it('is told apart from a whole input by its blueprint being a string', () => {
    expect(isRefInput({ blueprint: 'demo@1', workdir: '/w' })).toBe(true);
    expect(isRefInput({ blueprint: one(), workdir: '/w', caller: {}, options: DEFAULT_RUN_OPTIONS })).toBe(false);
  });

  it('becomes the input lev run would have started, with the tool queue of the workdir', async () => {
    const workdir = mkdtempSync(join(scratch, 'work-'));
    const input = await runInputFromRef(
      store,
      { blueprint: 'demo@1', task: 'look', workdir, inputs: { brief: 'short' } },
      'host-a',
      NO_CONFIG,
    );
    expect(input).toEqual({
      blueprint: one(),
      task: 'look',
      caller: { brief: 'short' },
      workdir,
      options: { ...DEFAULT_RUN_OPTIONS, unattended: true, toolTaskQueue: toolQueueName(workdir) },
    });
    expect(input.options.toolTaskQueue).toMatch(/^leviath-workdir-work-/);
    const attended = await runInputFromRef(
      store,
      { blueprint: 'demo', workdir: '/w', toolQueue: 'q', attended: true },
      'host-a',
      NO_CONFIG,
    );
    expect(attended.options).toMatchObject({ unattended: false, toolTaskQueue: 'q' });
  });

  it("carries the blueprint's webhooks and those of the resolving worker's user config", async () => {
    const told = loadToml('[agent]\nname = "told"\n[[notify.webhooks]]\nurl = "https://a.example/hook"\n').blueprint!;
    await store.push('told', told, '/a');
    const config = join(scratch, 'notify-config.toml');
    writeFileSync(config, '[[notify.webhooks]]\nurl = "https://b.example/hook"\nevents = ["failed"]\n');
    const input = await runInputFromRef(store, { blueprint: 'told', workdir: '/w', toolQueue: 'q' }, 'host-a', {
      LEVIATH_CONFIG: config,
    });
    expect(input.options.notify).toEqual([
      { url: 'https://b.example/hook', events: ['failed'] },
      { url: 'https://a.example/hook', events: ['completed', 'failed', 'cancelled', 'waiting'] },
    ]);
  });

  it('refuses what a person typed wrong, naming it', async () => {
    expect(await code(() => checkRefInput({ blueprint: 'demo', workdir: 'relative' }))).toBe('run-input-bad');
    // The workdir's own queue is read from the workdir, so a worker that does not see it asks for the queue.
    await expect(
      runInputFromRef(store, { blueprint: 'demo', workdir: join(scratch, 'absent') }, 'h', NO_CONFIG),
    ).rejects.toThrow(/is not a directory on the worker that resolved the run.*"toolQueue"/);
    expect(() => checkRefInput({ blueprint: 'demo', workdir: '/w', taks: 'x' } as never)).toThrow(
      /"taks" is not a key/,
    );
    expect(() => checkRefInput({ blueprint: 'demo', workdir: '/w', inputs: { n: 3 } } as never)).toThrow(
      /"inputs.n" must be a string/,
    );
  });

  it('is what lev run takes for an argument that is no path', () => {
    expect(isStoredRef('demo@3')).toBe(true);
    expect(isStoredRef('demo')).toBe(true);
    expect(isStoredRef('blueprints/demo')).toBe(false);
    expect(isStoredRef('agent.toml')).toBe(false);
    expect(isStoredRef('.')).toBe(false);
  });
});
