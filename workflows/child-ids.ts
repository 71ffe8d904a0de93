/**
 * The workflow ids a run or visit gives the workflows it starts, within the
 * length Temporal's SQL stores keep (docs/reference/sub-agents.md#ids).
 */
import { patched } from '@temporalio/workflow';
import { boundedWorkflowId, fitsWorkflowId } from '../src/runtime/index.js';
import { BOUNDED_WORKFLOW_IDS } from '../src/runtime/patches.js';

/**
 * `id` when a SQL store takes it; a longer one is shortened, except in a run
 * recorded before ids were (which started it with the whole id on a store that
 * took it, SQLite's), so it replays as it ran.
 */
export function startedId(id: string): string {
  return fitsWorkflowId(id) || !patched(BOUNDED_WORKFLOW_IDS) ? id : boundedWorkflowId(id);
}
