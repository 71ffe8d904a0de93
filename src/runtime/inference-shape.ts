/**
 * Which shape a stage's inferences take (docs/reference/blueprint.md#runtime):
 * the normal activity, or a local activity that the visit's own worker runs
 * inside the workflow task, recorded as one marker instead of an activity's
 * three events and two server round trips. A model's `local_inference` in the
 * model table decides for it; otherwise the blueprint's `[runtime]
 * local_inference` switch does; otherwise the normal activity. A visit takes the
 * local shape only when every entry of its model chain may, since the activity
 * may answer from any of them. Pure: the visit asks it once, when it starts.
 */
import { lookupModel } from '../providers/builtin-models.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { stageChain } from './model-fallback.js';

/** The shapes an inference may take: the normal activity, and a local activity. */
export const INFERENCE_SHAPES = ['activity', 'local'] as const;
export type InferenceShape = (typeof INFERENCE_SHAPES)[number];

/** The shape of a visit whose stage calls `chain` (`stageChain`). */
export function inferenceShape(bp: Pick<Blueprint, 'runtime' | 'models'>, chain: readonly string[]): InferenceShape {
  const local = (ref: string) => lookupModel(bp.models, ref)?.localInference ?? bp.runtime?.localInference ?? false;
  return chain.length > 0 && chain.every(local) ? 'local' : 'activity';
}

/** The `[runtime]` table a blueprint starts with to take `shape` everywhere: what tests and benches write. */
export function shapeToml(shape: InferenceShape): string {
  return shape === 'local' ? '[runtime]\nlocal_inference = true\n' : '';
}

/** Whether a visit of any stage of `bp` takes the local shape: a fan-out worker asks `LOCAL_INFERENCE` for them. */
export function anyLocalStage(bp: Pick<Blueprint, 'runtime' | 'models' | 'stages'>): boolean {
  return bp.stages.some((s) => inferenceShape(bp, stageChain(s)) === 'local');
}

/**
 * A local inference's backoff between attempts past this waits on a workflow
 * timer instead of inside the worker's task: a failing call does not hold
 * its workflow task open for long, and the wait survives the worker.
 */
export const LOCAL_RETRY_THRESHOLD_MS = 10_000;

/** The retry schedule every inference attempt follows, in either shape. */
export const INFERENCE_RETRY = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000 };

/**
 * How long a local inference may take over all its attempts: each attempt's
 * `startToClose` plus every backoff between them. The normal activity needs no
 * such bound (the server holds its retries); a local one that ran past it
 * fails the turn as a timed-out activity would.
 */
export function localScheduleToCloseMs(attemptTimeoutMs: number, maximumAttempts: number): number {
  let waits = 0;
  for (let i = 0; i < maximumAttempts - 1; i++)
    waits += Math.min(
      INFERENCE_RETRY.initialIntervalMs * INFERENCE_RETRY.backoffCoefficient ** i,
      INFERENCE_RETRY.maximumIntervalMs,
    );
  return attemptTimeoutMs * maximumAttempts + waits;
}
