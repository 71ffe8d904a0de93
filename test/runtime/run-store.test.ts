/**
 * The activity-side region set: rebuilt from a snapshot plus recorded
 * operations, incrementally from the last rebuild of the same run, and never
 * from another run that happened to use the same workflow id.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { DEFAULT_WORKFLOW_THREADS, defaultRuntimeConfig, RunStore } from '../../src/runtime/node/run-store.js';
import type { RecordedOp } from '../../src/runtime/ops.js';

const bp = loadBlueprintFromString(
  '[context.regions]\nnotes = { kind = "temporary", max_tokens = 1000 }\n',
  tmpdir(),
  'agent.toml',
).blueprint!;

function append(text: string, tokens: number, now: number): RecordedOp {
  return { call: { kind: 'write', region: 'notes', entry: { content: text, tokens } }, now, answers: [] };
}
const enter: RecordedOp = { call: { kind: 'enterStage', stage: 'main' }, now: 0, answers: [] };

function notes(state: Awaited<ReturnType<RunStore['state']>>): string[] {
  return state.regions.find((r) => r.name === 'notes')!.entries.map((e) => String(e.content));
}

describe('RunStore', () => {
  const store = new RunStore({ blobDir: mkdtempSync(join(tmpdir(), 'lev-store-')), env: {} });

  it('rebuilds the region set from operations and continues from its last rebuild', async () => {
    const ops = [enter, append('a', 10, 1)];
    expect(notes(await store.state('run-1', bp, null, ops))).toEqual(['a']);
    ops.push(append('b', 10, 2));
    expect(notes(await store.state('run-1', bp, null, ops))).toEqual(['a', 'b']);
  });

  it('starts again from the snapshot when a reused workflow id brings different operations', async () => {
    expect(notes(await store.state('reused', bp, null, [enter, append('first run', 10, 1)]))).toEqual(['first run']);
    expect(
      notes(await store.state('reused', bp, null, [enter, append('second run', 10, 5), append('more', 10, 6)])),
    ).toEqual(['second run', 'more']);
  });

  it('writes a snapshot that later rebuilds start from', async () => {
    const ops = [enter, append('x', 10, 1)];
    const hash = await store.snapshot('run-2', bp, null, ops);
    const fresh = new RunStore(store.config);
    expect(notes(await fresh.state('run-2', bp, hash, [append('y', 10, 2)]))).toEqual(['x', 'y']);
  });
});

describe('a worker’s runtime settings', () => {
  const none = join(mkdtempSync(join(tmpdir(), 'lev-cfg-')), 'config.toml');

  it('runs 100 activities and two workflow threads at once unless the environment says otherwise', () => {
    const config = defaultRuntimeConfig({ LEVIATH_CONFIG: none });
    expect({ slots: config.activitySlots, threads: config.workflowThreads }).toEqual({ slots: 100, threads: 2 });
    const tuned = defaultRuntimeConfig({
      LEVIATH_CONFIG: none,
      LEVIATH_ACTIVITY_SLOTS: '20',
      LEVIATH_WORKFLOW_THREADS: '4',
    });
    expect({ slots: tuned.activitySlots, threads: tuned.workflowThreads }).toEqual({ slots: 20, threads: 4 });
  });

  it('reads a rate for the whole task queue from LEVIATH_QUEUE_ACTIVITIES_PER_SECOND, else sets none', () => {
    expect(defaultRuntimeConfig({ LEVIATH_CONFIG: none }).queueActivitiesPerSecond).toBeUndefined();
    expect(
      defaultRuntimeConfig({ LEVIATH_CONFIG: none, LEVIATH_QUEUE_ACTIVITIES_PER_SECOND: '0.5' })
        .queueActivitiesPerSecond,
    ).toBe(0.5);
    for (const bad of ['0', '-2', 'fast', ''])
      expect(
        defaultRuntimeConfig({ LEVIATH_CONFIG: none, LEVIATH_QUEUE_ACTIVITIES_PER_SECOND: bad })
          .queueActivitiesPerSecond,
      ).toBeUndefined();
  });

  it('keeps the defaults for a value that is not a whole number above zero', () => {
    for (const bad of ['0', '-1', '1.5', 'many', ''])
      expect(defaultRuntimeConfig({ LEVIATH_CONFIG: none, LEVIATH_WORKFLOW_THREADS: bad }).workflowThreads).toBe(
        DEFAULT_WORKFLOW_THREADS,
      );
  });
});
