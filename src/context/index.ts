/**
 * The pure region engine (docs/reference/regions.md, docs/reference/context-tools.md, docs/reference/stages.md and
 * docs/reference/seeds.md#fitting). Workflow code, activities and
 * the simulator import it from here. It never touches the disk, the clock,
 * randomness, the network or a tokenizer: time comes in as `env.now`, token
 * counts come in with the text, and everything it holds is plain JSON.
 *
 * State
 * - `createRunState(bp, {window?})` -> `RunState` (docs/reference/regions.md#run-state); `window`
 *   overrides every stage's model window (simulator `--window`).
 * - Read: `visibleRegions`, `windowUsed`, `findRegion`, `regionTokens`,
 *   `openItems`, `checklistBody`, `groupRanges`, `joinedGroupTokens`.
 * - Every operation mutates the state in place and only when it succeeds;
 *   a failure (a value `{ok: false, code, message}` or an `[code]` tool
 *   result) leaves it byte-identical. Region objects keep their identity.
 *
 * Requests
 * - Operations that need text counted, cut or summarised are generators
 *   (`EngineOp<T>`) yielding `EngineRequest`s (`count`, `cut`, `summarise`).
 *   Drive them with `runSync(op, handler)`, or `applyLive` in the runtime's
 *   `ops.ts`, which also records the answers for replay.
 *
 * Operations (all take `env: EngineEnv` = {now, hooks?, maxSummaryTokens?})
 * - `enterStage(state, bp, stage, env)` -> `StageEntryResult`: visits,
 *   attempts reset, layout and visibility, budget re-resolution with
 *   reduction, stage instructions, `updates` snapshot (docs/reference/stages.md#transition-order step 4).
 * - `writeEntry(state, region, NewEntry, env)` -> `WriteResult` with the
 *   entries removed and sent to pending (docs/reference/regions.md).
 * - `maintain(state, bp, env)` -> `MaintenanceReport`: compaction pass, then
 *   the window cascade (docs/reference/regions.md#window-cascade). `recordUsage(state, promptTokens)` grows
 *   the calibration gap; `replyLimit(state, cap)` (docs/reference/regions.md#calibration-gap).
 * - `applyContextTool(state, bp, tool, args, env, counts?)` -> `ToolResult`
 *   (docs/reference/context-tools.md); `counts` carries the tokens of `content`/`item`/`note`.
 * - `seedRegion(state, region, SeedText[], env, {replaceSeeded})` (docs/reference/seeds.md#fitting).
 * - `completionEdges`, `chooseEdge(state, bp, reply)`, `outcomeEdge`,
 *   `edgeAvailable` (docs/reference/stages.md#normal-completion); `evaluateGate(state, bp, fromStage, edge |
 *   null, facts, env)` -> pass / block (nudge appended) / forced (docs/reference/stages.md#gates).
 * - `applyTransform(state, bp, edge)` (docs/reference/stages.md#transforms): clears now, marks folds
 *   for the next `maintain`.
 * - `fold(state, bp, region, goal, opts, env)` (docs/reference/regions.md#fold), used by `maintain`.
 * - `planWrite`/`commitPlan`: the two halves of a write, for callers that
 *   must check a fit before changing anything.
 * - `kindBehaviour(kind)`: what a kind does on overflow, in the cascade and
 *   under transforms.
 *
 * Prompt assembly (`renderPrompt`, docs/reference/rendering.md), tool-result routing
 * (`routeToolResult`, docs/reference/routing.md) and the simulator's summariser are re-exported
 * from their own modules below.
 */
export * from '../blueprint/budget.js';
export type {
  BlobRef,
  ChecklistItem,
  Content,
  CountedText,
  Entry,
  EntryKind,
  PromptMessage,
  PromptSystemBlock,
  RegionState,
  ToolCall,
} from '../shapes/content.js';
export * from './cache-markers.js';
export * from './deterministic-summary.js';
export * from './enter-stage.js';
export * from './fold.js';
export * from './gates.js';
export * from './groups.js';
export { checklistBody, items as checklistItems } from './kinds/checklist.js';
export type { CustomRegionHooks, EngineEnv, HookResult } from './kinds/custom.js';
export type { CascadePhase, KindBehaviour, OverflowRule, ReduceRule } from './kinds/index.js';
export { kindBehaviour } from './kinds/index.js';
export * from './maintenance.js';
export * from './measure.js';
export * from './render.js';
export * from './requests.js';
export * from './routing.js';
export * from './seed-fit.js';
export * from './state.js';
export * from './tools.js';
export * from './transforms.js';
export * from './write.js';
export type { Failure } from './write-failures.js';
