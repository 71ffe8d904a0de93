/**
 * Activity-side access to a run's blueprint and region set. Blueprints and
 * snapshots live in the blob store; the region set is rebuilt from the
 * latest snapshot plus the operations recorded since, and the last rebuild
 * per run is cached so consecutive turns replay only what is new.
 */
import { openBlobStore, parseBlobSpec } from '../../blobs/index.js';
import { ReadCachedBlobStore } from '../../blobs/read-cache.js';
import { loadUserConfig, scriptProviderSettings, type UserConfig } from '../../blueprint/user-config.js';
import { configuredKeyring } from '../../codec/keys.js';
import { cloneData, createRunState, type RunState } from '../../context/index.js';
import type { RateLimit } from '../../providers/flow-control.js';
import type { ScriptProviders } from '../../providers/index.js';
import type { Blueprint } from '../../shapes/frozen-blueprint.js';
import { dataPath, userConfigPath } from '../../state/locations.js';
import { ENGINE } from '../engine-calls.js';
import { type RecordedOp, replayOps } from '../ops.js';
import { customRegionHooks } from '../region-hooks.js';

export interface RuntimeConfig {
  /** Folder of the local blob store. */
  blobDir: string;
  /** "local" (the folder above) or a postgres:// URL; unset means local. */
  blobs?: string;
  /** Activities the worker runs at once; the Postgres pool holds as many connections. */
  activitySlots?: number;
  /** Threads that run the worker's workflow tasks. */
  workflowThreads?: number;
  /**
   * Activities the server starts per second on the worker's task queue, across every worker
   * polling it: a cluster-wide limit (docs/reference/long-runs.md#a-limit-for-the-whole-cluster).
   */
  queueActivitiesPerSecond?: number;
  env: NodeJS.ProcessEnv;
}

/** Activities one worker runs at once unless `LEVIATH_ACTIVITY_SLOTS` says otherwise: the SDK's own default, so many agents waiting on models never queue behind a small limit. */
export const DEFAULT_ACTIVITY_SLOTS = 100;

/**
 * Workflow threads of one worker unless `LEVIATH_WORKFLOW_THREADS` says otherwise. The SDK runs
 * one; with one, the workflow tasks of many runs that wake together (a fan-out's workers, whose
 * inferences end at once) wait for each other, and two made a worker's life about a tenth shorter
 * at 30 workers at once (bench/fanout.ts), for about 40 MB more resident memory.
 */
export const DEFAULT_WORKFLOW_THREADS = 2;

/** The blob store: `LEVIATH_BLOBS`, else `[runtime] blobs` in the user config, else the local folder. */
export function configuredBlobs(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.LEVIATH_BLOBS?.trim() || loadUserConfig(env).config.runtime.blobs;
}

export function defaultRuntimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const blobs = configuredBlobs(env);
  return {
    blobDir: env.LEVIATH_BLOB_DIR ?? dataPath('blobs', env),
    ...(blobs ? { blobs } : {}),
    activitySlots: positiveInteger(env.LEVIATH_ACTIVITY_SLOTS) ?? DEFAULT_ACTIVITY_SLOTS,
    workflowThreads: positiveInteger(env.LEVIATH_WORKFLOW_THREADS) ?? DEFAULT_WORKFLOW_THREADS,
    ...queueRate(env.LEVIATH_QUEUE_ACTIVITIES_PER_SECOND),
    env,
  };
}

/** `LEVIATH_QUEUE_ACTIVITIES_PER_SECOND`: a number above zero (a fraction is a call every few seconds), else no limit. */
function queueRate(raw: string | undefined): Pick<RuntimeConfig, 'queueActivitiesPerSecond'> {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isFinite(n) && n > 0 ? { queueActivitiesPerSecond: n } : {};
}

/** A whole number above zero, else nothing (the default holds). */
function positiveInteger(raw: string | undefined): number | undefined {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

interface Rebuilt {
  base: string | null;
  applied: number;
  /** The last operation applied, so a reused workflow id cannot pick up another run's state. */
  lastOp: string;
  state: RunState;
}

function lastOpKey(ops: readonly RecordedOp[], applied: number): string {
  return applied === 0 ? '' : JSON.stringify(ops[applied - 1]);
}

/** How many runs' latest region sets one worker keeps in memory. */
const CACHED_RUNS = 64;

export class RunStore {
  /** The configured store, behind the worker's read cache (`src/blobs/read-cache.ts`). */
  readonly blobs: ReadCachedBlobStore;
  private readonly blueprints = new Map<string, Blueprint>();
  /** Compiled custom-region scripts per blueprint, so a turn never recompiles them. */
  private readonly compiledHooks = new WeakMap<Blueprint, ReturnType<typeof customRegionHooks>>();
  private readonly latest = new Map<string, Rebuilt>();

  /** The user config, read once per config file. */
  private user: { file: string; config: UserConfig } | undefined;

  private userConfig(): UserConfig {
    const file = userConfigPath(this.config.env);
    if (this.user?.file !== file) this.user = { file, config: loadUserConfig(this.config.env).config };
    return this.user.config;
  }

  /** The user config's `[rate_limits]` (docs/reference/long-runs.md#flow-control). */
  rateLimits(): Record<string, RateLimit> {
    return this.userConfig().rateLimits;
  }

  /** The script providers `bp` carries, with their `[model_providers.<name>]` settings (docs/reference/script-providers.md). */
  scriptProviders(bp: Blueprint): ScriptProviders {
    return { defs: bp.providerScripts ?? [], settings: scriptProviderSettings(this.userConfig()) };
  }

  constructor(readonly config: RuntimeConfig) {
    this.blobs = new ReadCachedBlobStore(
      openBlobStore(parseBlobSpec(config.blobs, config.blobDir), config.activitySlots, configuredKeyring(config.env)),
    );
  }

  async putBlueprint(bp: Blueprint): Promise<string> {
    const ref = await this.blobs.put(JSON.stringify(bp));
    this.blueprints.set(ref.hash, bp);
    return ref.hash;
  }

  async blueprint(hash: string): Promise<Blueprint> {
    let bp = this.blueprints.get(hash);
    if (!bp) {
      bp = JSON.parse(await this.blobs.get(hash)) as Blueprint;
      this.blueprints.set(hash, bp);
    }
    return bp;
  }

  hooks(bp: Blueprint): ReturnType<typeof customRegionHooks> {
    if (!this.compiledHooks.has(bp)) this.compiledHooks.set(bp, customRegionHooks(bp));
    return this.compiledHooks.get(bp);
  }

  /** The region set after `ops` on top of snapshot `base` (null: the blueprint's fresh state). */
  async state(runId: string, bp: Blueprint, base: string | null, ops: readonly RecordedOp[]): Promise<RunState> {
    const cached = this.latest.get(runId);
    let state: RunState;
    let from: number;
    if (
      cached &&
      cached.base === base &&
      cached.applied <= ops.length &&
      cached.lastOp === lastOpKey(ops, cached.applied)
    ) {
      state = cloneData(cached.state);
      from = cached.applied;
    } else {
      state = base === null ? createRunState(bp) : (JSON.parse(await this.blobs.get(base)) as RunState);
      from = 0;
    }
    replayOps(ENGINE, state, bp, ops.slice(from), this.hooks(bp));
    // Callers only read the state (render, snapshot); the next rebuild clones before replaying onto it.
    this.remember(runId, { base, applied: ops.length, lastOp: lastOpKey(ops, ops.length), state });
    return state;
  }

  /** Writes the rebuilt region set as a new snapshot and returns its hash. */
  async snapshot(runId: string, bp: Blueprint, base: string | null, ops: readonly RecordedOp[]): Promise<string> {
    return this.snapshotOf(runId, await this.state(runId, bp, base, ops));
  }

  /** Stores `state`, the run's latest rebuild, as a snapshot; later rebuilds start from it. */
  async snapshotOf(runId: string, state: RunState): Promise<string> {
    const ref = await this.blobs.put(JSON.stringify(state));
    this.remember(runId, { base: ref.hash, applied: 0, lastOp: '', state });
    return ref.hash;
  }

  private remember(runId: string, rebuilt: Rebuilt): void {
    this.latest.delete(runId);
    this.latest.set(runId, rebuilt);
    if (this.latest.size > CACHED_RUNS) {
      const oldest = this.latest.keys().next().value;
      if (oldest !== undefined) this.latest.delete(oldest);
    }
  }
}
