/**
 * The pure region engine (SPEC 1–6, 9, 10.2). Workflow code, activities and
 * the simulator all import it from here.
 *
 * State: `createRunState(bp, {window?})` builds a plain-JSON `RunState`;
 * `enterStage` gives it a layout. Everything else reads or mutates that
 * state in place, and only when it succeeds: a failing call leaves it
 * byte-identical.
 *
 * Requests: operations that need text counted, cut or summarised are
 * generators (`EngineOp<T>`) that yield an `EngineRequest` and take the
 * answer. Drive them with `runSync(op, handler)` in tests and the simulator,
 * or `runAsync(op, handler)` with activities in a workflow.
 *
 * Operations:
 * - `writeEntry(state, region, NewEntry, env)` — SPEC 4.1–4.5; the result
 *   lists entries removed and entries sent to pending.
 * - `planWrite`/`commitPlan` — the two halves of a write, for callers that
 *   must check a fit before changing anything.
 * - `visibleRegions(state)`, `windowUsed(state)`, `findRegion`, `regionTokens`.
 * - Groups (SPEC 1.2): `groupRanges`, `joinedGroupTokens`, ...
 * - `kindBehaviour(kind)` — what a region kind does on overflow, in the
 *   cascade, under transforms.
 */
export * from './budget.js';
export * from './groups.js';
export { checklistBody, items as checklistItems } from './kinds/checklist.js';
export type { CustomRegionHooks, EngineEnv, HookResult } from './kinds/custom.js';
export { kindBehaviour } from './kinds/index.js';
export type { CascadePhase, KindBehaviour, OverflowRule, ReduceRule } from './kinds/index.js';
export type { Failure } from './messages.js';
export * from './requests.js';
export * from './state.js';
export type * from './types.js';
export * from './write.js';
export * from './fold.js';
export * from './maintenance.js';
export * from './stage.js';
export * from './tools.js';
export * from './gates.js';
export * from './seed-fit.js';
export * from './transforms.js';
