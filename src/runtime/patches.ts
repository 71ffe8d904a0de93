/**
 * The `patched()` ids of workflow changes that altered what a workflow does
 * (CONTRIBUTING.md): a run started before the change replays its old path,
 * a new run takes the new one. Each id stays until no run started before it
 * can still be running.
 */

/**
 * A `context_read` of stored entries answers their text (through a `joinText` activity when it
 * joins several) and is charged the entries' counts instead of a recount
 * (docs/reference/regions.md#stored-arguments).
 */
export const STORED_ARGUMENTS = 'stored-arguments-read-full-text';

/**
 * The inference activity also writes the snapshot when the operation log is due one, and
 * counts ahead what the workflow will count after the reply; a context-tool turn is then one
 * workflow task and one activity instead of a `saveSnapshot` activity and `countText` local
 * activities besides (docs/architecture.md#event-sourcing).
 */
export const INFERENCE_BOOKKEEPING = 'inference-counts-and-snapshots';
