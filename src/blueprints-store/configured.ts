/**
 * The blueprint store a process uses (docs/reference/cluster-runs.md#the-store):
 * PostgreSQL when the blob store is (`LEVIATH_BLOBS` or `[runtime] blobs`),
 * so a cluster shares its pushed blueprints as it shares its blobs; else the
 * folder under the Leviath home.
 */
import { parseBlobSpec } from '../blobs/open.js';
import { configuredKeyring } from '../codec/keys.js';
import { configuredBlobs } from '../runtime/node/run-store.js';
import { PostgresBlueprintStore } from './pg-blueprints.js';
import { type BlueprintStore, blueprintStoreDir, FolderBlueprintStore } from './pushed-blueprints.js';

export function openBlueprintStore(env: NodeJS.ProcessEnv = process.env): BlueprintStore {
  const spec = parseBlobSpec(configuredBlobs(env), '');
  if (spec.kind === 'local') return new FolderBlueprintStore(blueprintStoreDir(env));
  const keys = configuredKeyring(env);
  return new PostgresBlueprintStore(spec.url, keys ? { keys } : {});
}

/** Runs `work` on the configured store and closes it. */
export async function withBlueprintStore<T>(
  work: (store: BlueprintStore) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const store = openBlueprintStore(env);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
