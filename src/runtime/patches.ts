/**
 * The `patched()` ids of workflow changes that altered what a workflow does
 * (CONTRIBUTING.md): a run started before the change replays its old path,
 * a new run takes the new one. Each id stays until no run started before it
 * can still be running. Workflows ask each patch once, when a run of theirs
 * starts (`patched()` asked later, after a local activity's marker, can
 * replay with its marker unmatched), so a run recorded before a change
 * replays the old paths throughout.
 */

/**
 * This version's changes to a run: visits start outside the run's
 * cancellation, which reaches them by workflow id, and take people's
 * updates; `LeviathStatus = "stuck"` after a visit that ended stuck; a
 * cancelled run writes its memo and status (docs/reference/operators.md).
 */
export const RUN_PATCH = 'operators-run-updates-cancel';

/**
 * This version's changes to a visit: a visit in error fails its workflow
 * with the error's code and its outcome as details; an interactive stage
 * tells its run when it waits for a reply; a cancelled visit hands its
 * region set to the run (docs/reference/operators.md).
 */
export const STAGE_PATCH = 'operators-visit-updates-errors';

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

/**
 * A visit of a stage that grants MCP tools asks the servers for them first,
 * in a `discoverTools` activity on the run's tool queue, and hands the
 * recorded catalog to its inferences and tool calls (docs/reference/mcp.md#discovery).
 * Asked only by visits of such stages.
 */
export const MCP_DISCOVERY = 'mcp-tool-discovery';

/**
 * `[repetition_detection]` (on by default, as in the original): a stage
 * visit that repeats the same call or only looks for too long gets a
 * `[System]` note in its conversation (docs/reference/long-runs.md#repetition-detection).
 */
export const REPETITION_DETECTION = 'repetition-detection-nudges';

/**
 * A stage visit waits out a provider outage instead of failing: the inference activity hands a
 * retryable provider failure back after a few attempts, and the visit waits on a durable timer
 * showing `waiting` for the provider, moves its model chain on after `[run] fallback_after`
 * and back later, and fails with `provider-unavailable` after `[run] provider_patience`
 * (docs/reference/long-runs.md#provider-outages). A fan-out worker that runs its visits inside
 * it asks it when it starts.
 */
export const PROVIDER_PATIENCE = 'provider-outages-wait';

/**
 * A visit of a stage that asks in the forms of interaction points: the
 * checkpoints of an `interactive_points` stage, and the questions of
 * `ask_user_choice`, `ask_user_confirm`, `present_for_review` and
 * `edit_document` (docs/reference/interaction.md). Asked only by visits of
 * such stages (`asksInForms`).
 */
export const INTERACTION_POINTS = 'interaction-points';

/**
 * A visit that goes on as new by itself (its turn cap, or Temporal's suggestion) reads its run's
 * `hand-over` request again once its continuation is ready: a request that arrived while it
 * compacted its log hands the visit over instead of being lost with the old run of the visit,
 * which left its run waiting with a growing history (docs/reference/long-runs.md#the-run-continues-as-new).
 */
export const HAND_OVER_READ_LAST = 'visit-hand-over-read-last';

/**
 * A stage that lists the asking tools `ask_user_choice`, `ask_user_confirm`,
 * `present_for_review` or `edit_document` and grants no MCP tool runs no
 * `discoverTools` activity: the grants are read from the tool catalogue
 * (`src/shapes/tool-catalogue.ts`), which knows them for the runtime's own.
 * Before it they were taken for MCP grants (`mcpGrants`'s `before-asking-fix`
 * rule). Asked only by visits of such stages (`discoveryRulesDiffer`), and
 * by a fan-out worker whose blueprint has one, when it starts.
 */
export const ASKING_TOOLS_NO_MCP_DISCOVERY = 'asking-tools-no-mcp-discovery';

/**
 * A visit that records this marker takes the paths of every visit patch above
 * without recording theirs (`workflows/patch-asker.ts`): the SDK records each
 * patch as a marker and an upsert of the `TemporalChangeVersion` search
 * attribute, two events and a visibility write each, which made a visit's
 * start 14 events of markers (docs/benchmarks.md#the-floor). Its engine
 * operations also make no promise while nothing they ask needs an activity
 * (`applyNow`, counts made ahead): the SDK's promise hook records a stack
 * trace for every promise workflow code makes, a large share of a turn's
 * workflow CPU. A visit recorded before it asks each patch as it did and
 * awaits every step of an operation, so its commands replay in their order.
 * Patches added after it are asked after it with `patched()` itself, never
 * through the asker, which answers true for any id once this marker is recorded.
 */
export const VISIT_PATCHES_AT_ONCE = 'visit-patches-at-once';

/**
 * A visit that records this marker takes every path of `VISIT_PATCHES_AT_ONCE` without recording
 * that marker too, and its turn makes no promise for a step with nothing to wait for
 * (`src/runtime/steps.ts`): the steps of a turn (the operators' point, the maintenance point,
 * storing the reply, answering its calls, the repetition watch) run to their end at once unless an
 * activity, a timer or a condition must answer first, where each was an async function awaited
 * whether or not it waited. The commands a turn schedules are the same, in the same order; what
 * may differ is how a turn's microtasks interleave with another coroutine of the visit (a tool
 * worker watch's look, a signal's reply), so a visit recorded before it keeps its awaited steps.
 * It is asked before `VISIT_PATCHES_AT_ONCE`, which a visit recording it does not ask
 * (`workflows/patch-asker.ts`): one marker a visit, as before.
 */
export const VISIT_SYNC_STEPS = 'visit-sync-steps';

/**
 * A visit whose stage's models may all run as local activities (`[runtime] local_inference` or the
 * model table's `local_inference`, `src/runtime/inference-shape.ts`) calls `infer` as a local
 * activity: one marker per turn instead of an activity's events (docs/reference/blueprint.md#runtime).
 * Asked only by visits of such stages, so other visits record no marker; a visit recorded before
 * it replays its activities.
 */
export const LOCAL_INFERENCE = 'inference-local-activity';

/**
 * The original's empty-response nudge: a visit of a stage with a `nudge`
 * (`[agent.nudge]`, `[stages.<name>.nudge]`) that answers without tool calls
 * before its first call is told to use its tools and runs on
 * (docs/reference/stages.md#the-empty-response-nudge). Asked only by visits of
 * such stages.
 */
export const EMPTY_RESPONSE_NUDGE = 'empty-response-nudge';

/**
 * Stage hooks: a visit of a stage with `[stages.<name>.hooks]` runs its
 * `on_stage_enter`, `before_inference`, `after_inference`, `on_tool_call`
 * and `on_stage_exit` scripts (docs/reference/stage-hooks.md), which may
 * write regions. Asked only by visits of stages with such hooks.
 */
export const STAGE_HOOKS = 'stage-hooks';

/**
 * A run whose blueprint has a stage with `on_completion` or `on_error` runs
 * the hook of the stage it ends in as it ends (docs/reference/stage-hooks.md).
 * Asked only by such runs, once their blueprint is known.
 */
export const TERMINAL_HOOKS = 'stage-hooks-terminal';

/**
 * `[[transforms]]`: a visit that starts an agent its blueprint's `handoffs`
 * name hands it the mapped regions in its start, and the child writes them
 * after its seeds (docs/reference/sub-agents.md#context-transforms). Asked
 * only by visits of blueprints with `handoffs`, which no blueprint stored
 * before them has.
 */
export const CONTEXT_HANDOFFS = 'context-transforms-handoff';

/**
 * `[agent] dynamic_tools`: before each turn, a visit of a stage that lists a
 * tool the run may write reads the workdir's `tools/` in a `scanTools`
 * activity on the run's tool queue, and hands the recorded hash of what it
 * found to the turn's inference and tool calls
 * (docs/reference/script-tools.md#tools-a-run-writes). Asked only by visits
 * of such stages, which no blueprint of an earlier version has.
 */
export const DYNAMIC_TOOLS = 'dynamic-tools-scan';

/**
 * A visit's turns offer the run's tools, the union of what its stages are granted, in one order,
 * and state the stage's own grants in a system block after the stage instructions, so a stage
 * change keeps the front of the request in the provider's cache
 * (`[runtime] stable_tools`, docs/reference/rendering.md#the-tool-list). Grants are enforced as
 * before. Asked only by visits of stages whose own list differs from the run's (`offersRunTools`),
 * so other visits record no marker; a visit recorded before it offers its stage's tools.
 */
export const STABLE_TOOL_LIST = 'stable-tool-list';

/** The paths a run of a stage visit takes, decided once when it starts. */
export interface VisitPatches {
  /** `STAGE_PATCH`. */
  operators: boolean;
  /** `INFERENCE_BOOKKEEPING`. */
  bookkeeping: boolean;
  /** `STORED_ARGUMENTS`. */
  storedArguments: boolean;
  /** `MCP_DISCOVERY`; absent in a visit recorded before it. */
  reach?: boolean;
  /** `REPETITION_DETECTION`; absent: off. */
  repetition?: boolean;
  /** `TOOL_WORKER_PATIENCE`; absent in a visit recorded before it, and in a run without a tool queue. */
  toolPatience?: boolean;
  /** `PROVIDER_PATIENCE`; absent: the activity's retries, then the failure. */
  patience?: boolean;
  /** `INTERACTION_POINTS`; absent in a visit of a stage that asks in no such form. */
  points?: boolean;
  /** `HAND_OVER_READ_LAST`; absent: the hand-over as read before the continuation was made. */
  handOverReadLast?: boolean;
  /** `ASKING_TOOLS_NO_MCP_DISCOVERY`; absent: the asking tools other than `ask_user` count as MCP grants. */
  askingToolsNotMcp?: boolean;
  /** `SAFE_COMMAND_ARGUMENTS`; asked by attended visits only, absent: the safe list judges keys only. */
  safeArguments?: boolean;
  /** `VISIT_PATCHES_AT_ONCE` (a fan-out worker's: `RUN_PATCHES_AT_ONCE`); absent: every engine operation awaits each step. */
  syncOps?: boolean;
  /** `VISIT_SYNC_STEPS`; absent (and in a fan-out worker's visit inside its run): each step of a turn is awaited. */
  syncSteps?: boolean;
  /** `LOCAL_INFERENCE`; asked by visits whose stage takes the local shape only, absent: the `infer` activity. */
  localInference?: boolean;
  /** `EMPTY_RESPONSE_NUDGE`; absent in a visit of a stage without a nudge. */
  nudge?: boolean;
  /** `STAGE_HOOKS`; absent in a visit of a stage without hooks. */
  hooks?: boolean;
  /** `CONTEXT_HANDOFFS`; absent in a visit of a blueprint without `handoffs`. */
  handoffs?: boolean;
  /** `DYNAMIC_TOOLS`; absent in a visit of a stage that lists no tool the run may write. */
  written?: boolean;
  /** `STABLE_TOOL_LIST`; absent: the stage's own tools (a fan-out worker's visits inside it, a stage granted the run's list). */
  stableTools?: boolean;
}

/**
 * A fan-out worker runs its stage visits inside its own run instead of as
 * child stage workflows: one workflow per worker, its operators' reports
 * function calls instead of signals. A visit that would continue as new
 * goes on as a child stage workflow. The worker starts with a local
 * `workerStart` that also resolves the seeds that read nothing from the
 * host. A run that records this patch takes `RUN_PATCH`'s paths without
 * asking it (docs/reference/sub-agents.md#one-workflow-per-worker).
 */
export const INLINE_WORKER = 'fan-out-worker-visits-inline';

/** The paths of a visit that starts after every patch above, and of a fan-out worker's visit inside its
 * run, which asks no patch of its own. Repetition detection stays off there: a worker recorded before it
 * must replay as it ran. No worker recorded before interaction points had a stage that asks in their forms,
 * nor one recorded before the nudge or stage hooks a stage with a `nudge` or `hooks`, nor one recorded
 * before context transforms a blueprint with `handoffs`, nor one recorded before `DYNAMIC_TOOLS` a stage that
 * lists a tool the run may write. */
export const CURRENT_VISIT: VisitPatches = {
  operators: true,
  bookkeeping: true,
  storedArguments: true,
  reach: true,
  points: true,
  nudge: true,
  hooks: true,
  handoffs: true,
  written: true,
};

/**
 * A run started with a blueprint reference (`{ "blueprint": "demo@3", ... }`, from the Web UI,
 * `temporal workflow start` or a schedule) resolves it in a `resolveRunInput` activity before
 * anything else; runs started with a whole blueprint never take this path
 * (docs/reference/cluster-runs.md#blueprints-by-reference).
 */
export const RUN_BY_REFERENCE = 'run-input-blueprint-reference';

/**
 * A run whose options name webhooks tells them of its end in `notifyWebhook` activities
 * (docs/reference/cluster-runs.md#notifications); runs without webhooks call none.
 */
export const RUN_NOTIFY = 'run-notify-webhooks';

/**
 * The run workflow continues as new once its history passes
 * `runHistoryEvents` events: between visits, or by asking its live visit to
 * hand over at its next turn and starting it again in the next run under
 * the same workflow id (docs/reference/long-runs.md#the-run-continues-as-new).
 * Not for a fan-out worker that runs its visits inside it: nothing reports
 * to it by signal.
 */
export const RUN_CONTINUES_AS_NEW = 'run-continues-as-new';

/**
 * A tool call or seed on the run's tool queue waits only so long to be
 * taken; then the run asks whether a tool worker polls, shows `waiting`
 * (`tool-worker-missing`) while none does, and fails `tool-worker-missing`
 * after `[run] tool_worker_patience` (docs/reference/long-runs.md#tool_worker_patience).
 * Asked by every run when it starts, and by each visit of a run with a tool queue.
 */
export const TOOL_WORKER_PATIENCE = 'tool-worker-patience';

/**
 * A run that tells its webhooks `waiting` hands the questions it told to its
 * next run when it continues as new, so a question still open is told once
 * (docs/reference/cluster-runs.md#notifications). Asked only by runs with webhooks.
 */
export const NOTIFY_TOLD_CARRIED = 'notify-told-carried';

/**
 * A workflow id a run or visit starts (a stage visit, a fan-out worker or
 * shard, a spawned agent) that would pass 255 characters is shortened to a
 * prefix and a hash (`boundedWorkflowId`), since Temporal's SQL stores refuse
 * longer ones (docs/reference/sub-agents.md#ids). Asked only when an id is
 * that long, so other runs record no marker for it; a run recorded before
 * (which started such an id whole: on SQLite it ran, on a SQL store its child
 * never started) replays as it ran.
 */
export const BOUNDED_WORKFLOW_IDS = 'bounded-workflow-ids';

/**
 * Runs are traced from inside the workflow (docs/reference/operating.md#traces): the
 * OpenTelemetry interceptors in the workflow bundle (`workflows/spans.ts`) wrap the run's
 * activities, child workflows, signals and updates in spans, which add awaits of their own. A
 * workflow recorded before them passes its calls straight through, as it ran. Asked by every
 * workflow, first thing.
 */
export const WORKFLOW_SPANS = 'workflow-otel-spans';

/**
 * A run started by a person or a schedule continues as new onto its Worker Deployment's current
 * version (`initialVersioningBehavior: AUTO_UPGRADE`), where it otherwise stays pinned to the
 * version it started on (docs/reference/operating.md#safe-deploys). Asked by runs that continue
 * as new and have no parent run.
 */
export const RUN_UPGRADES_ON_CONTINUE = 'run-upgrades-on-continue';

/**
 * A fork's run (`lev fork`, docs/reference/cluster-runs.md#fork) starts with a `forkStart`
 * activity that rebuilds the region set its original had after the turn it was forked at, then
 * goes on with the visit that was live there, as a run that continued as new would. Only a
 * fork's input takes this path, so the marker tells its history apart.
 */
export const RUN_FORK = 'run-fork-seeded';

/**
 * A run with webhooks delivers each notice from a delivery workflow of its own
 * (`notifyWorkflow`, started with `ParentClosePolicy.ABANDON`) that keeps
 * trying for the webhook's `[notify] patience`: the run waits only for it to
 * start, and a delivery outlives the run (docs/reference/cluster-runs.md#deliveries).
 * Runs recorded before it deliver in `notifyWebhook` activities of their own, 8 attempts.
 */
export const RUN_NOTIFY_PATIENCE = 'run-notify-delivery-workflows';

/**
 * The safe list judges a shell command by its arguments too (`git branch -D`, `jq --rawfile`, a
 * background `&` are no longer pre-approved), so an attended visit asks a person about them
 * (docs/tools.md#safe-commands). Asked only by attended visits, the only ones whose workflow
 * decides on the safe list; the tool activity applies the rules to every call whatever the visit recorded.
 */
export const SAFE_COMMAND_ARGUMENTS = 'safe-command-arguments';

/**
 * A run that records this marker takes the paths of every run patch it asks when
 * it starts or later (`INLINE_WORKER`, `PROVIDER_PATIENCE`, `RUN_PATCH`,
 * `RUN_CONTINUES_AS_NEW`, `TOOL_WORKER_PATIENCE`, `RUN_UPGRADES_ON_CONTINUE`, `RUN_NOTIFY`,
 * `RUN_NOTIFY_PATIENCE`, `ASKING_TOOLS_NO_MCP_DISCOVERY`, `NOTIFY_TOLD_CARRIED`) without
 * recording theirs, as `VISIT_PATCHES_AT_ONCE` does for a visit; a fan-out worker's visits
 * inside it apply engine operations without promises as such a visit does. A run recorded
 * before it asks each as it did.
 */
export const RUN_PATCHES_AT_ONCE = 'run-patches-at-once';
