/**
 * The runtime, split by where it may run.
 *
 * `src/runtime/*.ts` (this index) is workflow-safe: plain data shapes that
 * cross the workflow boundary (`types`, `activity-types`), the event-sourced
 * operation log (`ops`, `engine-calls`), every decision the workflows make
 * (`visit`), and reading Temporal failures (`failures`). Like `src/context`
 * and `src/rhai` it is bundled into workflow code, so it imports no `node:*`
 * module, no zod, no tokenizer, and reads no clock (`test/context/purity.test.ts`).
 *
 * `src/runtime/node/` is what the activities do, on Node: rebuild the region
 * set and call the model (`inference`), run tools (`tool-call`), resolve
 * seeds (`seeding`), summarise (`summaries`), count and cut text (`text`),
 * and keep blobs and snapshots (`run-store`). Workflow code never imports it.
 *
 * `src/worker/` starts workers and clients; it imports `activities/`, which
 * imports `src/runtime/node/`. `test/folders.test.ts` keeps the folder
 * imports free of cycles.
 */

// What workflow code reads of the blueprint loader and the model table comes through here, so
// workflows take values from src/runtime alone (test/folders.test.ts).
export { DEFAULT_ASK_TIMEOUT_SECS } from '../blueprint/duration.js';
export { stageModel } from '../blueprint/stage-layouts.js';
export { encodingFor, lookupModel } from '../providers/builtin-models.js';
export * from './activity-types.js';
export * from './after-turn.js';
export * from './agents/agent-tool-args.js';
export * from './agents/fan-out-report.js';
export * from './agents/handoff.js';
export * from './agents/lineage.js';
export * from './agents/queue.js';
export * from './agents/shards.js';
export * from './agents/worker-spec.js';
export * from './calls.js';
export * from './continuation.js';
export * from './defaults.js';
export * from './details.js';
export * from './engine-calls.js';
export * from './failures.js';
export * from './fleet-metrics.js';
export * from './fork-carry.js';
export * from './guardrails.js';
export * from './live-progress.js';
export * from './message-checks.js';
export * from './notice.js';
export * from './ops.js';
export * from './people/asks.js';
export * from './people/status.js';
export * from './people/updates.js';
export * from './people/visit-side.js';
export * from './repetition.js';
export * from './search-attributes.js';
export * from './spend.js';
export * from './texts.js';
export * from './trace-context.js';
export * from './types.js';
export * from './visit.js';
