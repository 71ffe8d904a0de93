/**
 * Asks a workflow's patches at its start with one marker instead of one each
 * (`VISIT_PATCHES_AT_ONCE`, `RUN_PATCHES_AT_ONCE` in src/runtime/patches.ts):
 * the SDK records every patch as a marker and an upsert of the
 * `TemporalChangeVersion` search attribute, a visibility write on the server.
 */
import { patched } from '@temporalio/workflow';

/**
 * Asks `atOnce`; `ask` is `patched` for the patches older than it: a run that records
 * `atOnce` takes every path without a marker of its own, one recorded before it asks each
 * as it did. A patch newer than `atOnce` is asked with `patched` itself, since `ask` answers
 * true for any id once `atOnce` is recorded. `newer`: a newer patch, asked before, that stands
 * for `atOnce` too (`VISIT_SYNC_STEPS`), so a workflow recording it asks `atOnce` no more.
 */
export function patchesAtOnce(atOnce: string, newer = false): { atOnce: boolean; ask: (id: string) => boolean } {
  const current = newer || patched(atOnce);
  return { atOnce: current, ask: (id) => current || patched(id) };
}
