/**
 * The `[runtime]` keys a run carries: `local_inference`, the switch that runs
 * its inferences as local activities, and `stable_tools`, the switch that
 * offers every turn the run's tools (docs/reference/blueprint.md#runtime).
 * A blueprint may set it, and the user config sets it for every blueprint
 * loaded against it that does not; both read it here.
 */
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { TableReader } from './fields.js';

/** The `[runtime]` keys a run carries in its blueprint. */
export const RUN_RUNTIME_KEYS = ['local_inference', 'stable_tools'] as const;

/** What `[runtime]` says of a run, from a blueprint's table or the user config's. */
export function readRunRuntime(t: TableReader | undefined): NonNullable<Blueprint['runtime']> {
  const localInference = t?.boolean('local_inference');
  const stableTools = t?.boolean('stable_tools');
  return {
    ...(localInference !== undefined ? { localInference } : {}),
    ...(stableTools !== undefined ? { stableTools } : {}),
  };
}
