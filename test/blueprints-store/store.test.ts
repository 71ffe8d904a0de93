/**
 * The store of pushed blueprints (docs/reference/cluster-runs.md#blueprints-by-reference):
 * versions by name, content-addressed objects, references, and run inputs
 * by reference made whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRefInput, isStoredRef, runInputFromRef } from '../../src/blueprints-store/run-input.js';
import { BlueprintStore, blueprintHash, parseRef } from '../../src/blueprints-store/store.js';
import { isLevError } from '../../src/errors.js';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { isRefInput } from '../../src/runtime/ref-input.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { loadToml } from '../blueprint/helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-bp-store-'));
const NO_CONFIG = { LEVIATH_CONFIG: join(scratch, 'no-config.toml') };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function code(work: () => unknown): string {
  try {
    work();
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

describe('BlueprintStore', () => {
  it('numbers the versions of a name from 1, and takes none for an unchanged push', () => {
    const store = new BlueprintStore(join(scratch, 'versions'));
    const first = store.push('demo', one(), '/src/demo');
    expect(first).toMatchObject({ name: 'demo', version: 1, hash: blueprintHash(one()), created: true });
    expect(store.push('demo', one(), '/src/demo')).toMatchObject({ version: 1, created: false });
    expect(store.push('demo', two(), '/src/demo')).toMatchObject({ version: 2, created: true });
    expect(store.versions('demo').map((v) => v.version)).toEqual([1, 2]);
    expect(store.push('other', one(), '/src/demo')).toMatchObject({ name: 'other', version: 1, hash: first.hash });
    expect(store.names().map((v) => `${v.name}@${v.version}`)).toEqual(['demo@2', 'other@1']);
  });

  it('resolves name@version to that version and the name alone to the latest', () => {
    const store = new BlueprintStore(join(scratch, 'resolve'));
    store.push('demo', one(), '/a');
    store.push('demo', two(), '/a');
    expect(store.resolve('demo@1').bp).toEqual(one());
    expect(store.resolve('demo').version.version).toBe(2);
    expect(store.resolve('demo').bp.stages[0]?.maxIterations).toBe(7);
  });

  it('refuses a malformed name or reference, and one that names nothing', () => {
    const store = new BlueprintStore(join(scratch, 'refuse'));
    store.push('demo', one(), '/a');
    expect(code(() => parseRef('demo@latest'))).toBe('blueprint-ref-bad');
    expect(code(() => parseRef('demo@0'))).toBe('blueprint-ref-bad');
    expect(code(() => store.push('../escape', one(), '/a'))).toBe('blueprint-ref-bad');
    expect(code(() => store.resolve('demo@2'))).toBe('blueprint-ref-unknown');
    expect(code(() => store.resolve('nothing'))).toBe('blueprint-ref-unknown');
    expect(() => store.resolve('demo@2')).toThrow(/has versions 1 to 1/);
  });
});

describe('a run input by reference', () => {
  const store = new BlueprintStore(join(scratch, 'inputs'));
  store.push('demo', one(), '/a');

  it('is told apart from a whole input by its blueprint being a string', () => {
    expect(isRefInput({ blueprint: 'demo@1', workdir: '/w' })).toBe(true);
    expect(isRefInput({ blueprint: one(), workdir: '/w', caller: {}, options: DEFAULT_RUN_OPTIONS })).toBe(false);
  });

  it('becomes the input lev run would have started, with the tool queue of the workdir', () => {
    const workdir = mkdtempSync(join(scratch, 'work-'));
    const input = runInputFromRef(
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
    const attended = runInputFromRef(
      store,
      { blueprint: 'demo', workdir: '/w', toolQueue: 'q', attended: true },
      'host-a',
      NO_CONFIG,
    );
    expect(attended.options).toMatchObject({ unattended: false, toolTaskQueue: 'q' });
  });

  it("carries the blueprint's webhooks and those of the resolving worker's user config", () => {
    const told = loadToml('[agent]\nname = "told"\n[[notify.webhooks]]\nurl = "https://a.example/hook"\n').blueprint!;
    store.push('told', told, '/a');
    const config = join(scratch, 'notify-config.toml');
    writeFileSync(config, '[[notify.webhooks]]\nurl = "https://b.example/hook"\nevents = ["failed"]\n');
    const input = runInputFromRef(store, { blueprint: 'told', workdir: '/w', toolQueue: 'q' }, 'host-a', {
      LEVIATH_CONFIG: config,
    });
    expect(input.options.notify).toEqual([
      { url: 'https://b.example/hook', events: ['failed'] },
      { url: 'https://a.example/hook', events: ['completed', 'failed', 'cancelled', 'waiting'] },
    ]);
  });

  it('refuses what a person typed wrong, naming it', () => {
    expect(code(() => checkRefInput({ blueprint: 'demo', workdir: 'relative' }))).toBe('run-input-bad');
    // The workdir's own queue is read from the workdir, so a worker that does not see it asks for the queue.
    expect(() =>
      runInputFromRef(store, { blueprint: 'demo', workdir: join(scratch, 'absent') }, 'h', NO_CONFIG),
    ).toThrow(/is not a directory on the worker that resolved the run.*"toolQueue"/);
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
