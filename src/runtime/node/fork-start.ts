/**
 * The `forkStart` activity's work (docs/reference/cluster-runs.md#fork): the
 * region set the original's next inference read, rebuilt from its snapshot
 * and operations with the original's blueprint and stored as the fork's
 * first snapshot, so the fork never replays the original's operations
 * against a blueprint `--model` changed; the fork's blueprint; and every blob
 * the region set refers to stored again under the fork's run, so `lev blobs
 * gc` keeps them while the fork is known even once the original is
 * forgotten.
 */
import { withModel } from '../../blueprint/model-switch.js';
import type { ForkStart, ForkStartRequest } from '../activity-types.js';
import type { RunStore } from './run-store.js';
import { ancestorsOf, toolCeilings } from './tool-context.js';

const HASH = /^[0-9a-f]{64}$/;

/** The blob hashes a value refers to: every `{ hash, bytes }` in it, however deep. */
export function blobHashes(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) blobHashes(v, found);
  else if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    if (typeof o.hash === 'string' && HASH.test(o.hash) && typeof o.bytes === 'number') found.add(o.hash);
    for (const v of Object.values(o)) blobHashes(v, found);
  }
  return found;
}

export async function forkStart(store: RunStore, req: ForkStartRequest): Promise<ForkStart> {
  const original = await store.blueprint(req.blueprintHash);
  const state = await store.state(req.runId, original, req.base, req.ops);
  const snapshot = await store.snapshotOf(req.runId, state);
  const blueprint = req.model ? withModel(original, req.model) : original;
  const hash = await store.putBlueprint(blueprint);
  for (const held of blobHashes(state)) await store.blobs.put(await store.blobs.get(held));
  const ceilings = req.ceiling?.length ? toolCeilings(await ancestorsOf(store, req.ceiling)) : undefined;
  return { blueprint, hash, state, snapshot, ...(ceilings ? { ceilings } : {}) };
}
