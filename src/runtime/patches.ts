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
