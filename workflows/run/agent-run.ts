/**
 * An agent run: seeds the region set, then walks the stage graph, one child
 * stage workflow per visit (a fan-out worker runs its visits inside it,
 * `inline-visit.ts`). Between visits it chooses the edge, runs the
 * completion checks (gates), applies the edge transform and enters the next
 * stage. A sub-agent (a fan-out's worker, a spawned agent) is the same
 * workflow, started by its parent's stage visit with `input.child`. The
 * region set travels as plain data; large text stays in the blob store.
 * People steer it with updates (`run-operators.ts`); a cancellation reaches
 * the live visit and ends the run CANCELED. The steps live in
 * `run-steps.ts`, the decisions in `src/runtime/visit.ts`.
 */

import {
  ApplicationFailure,
  CancelledFailure,
  ContinueAsNew,
  isCancellation,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { EventLog } from '../../src/runtime/event-log.js';
import type {
  ChildRunResult,
  ForkSeed,
  RunCarry,
  RunInput,
  RunResult,
  SeededRegion,
  WorkerInput,
} from '../../src/runtime/index.js';
import {
  afterHandoffWrite,
  BLUEPRINT_KEY,
  childBlueprintOf,
  departure,
  finalOutput,
  forkCarry,
  type HandoffPart,
  handoffWrite,
  isWorkerStart,
  PARENT_KEY,
  STATUS_KEY,
  upgradesOnContinue,
  workerRunInput,
} from '../../src/runtime/index.js';
import { anyLocalStage } from '../../src/runtime/inference-shape.js';
import { anyDiscoveryRulesDiffer } from '../../src/runtime/mcp-grants.js';
import { eventsQuery, progressQuery } from '../../src/runtime/messages.js';
import {
  ASKING_TOOLS_NO_MCP_DISCOVERY,
  INLINE_WORKER,
  LOCAL_INFERENCE,
  NOTIFY_TOLD_CARRIED,
  PROVIDER_PATIENCE,
  RUN_BY_REFERENCE,
  RUN_CONTINUES_AS_NEW,
  RUN_FORK,
  RUN_NOTIFY,
  RUN_NOTIFY_PATIENCE,
  RUN_PATCH,
  RUN_PATCHES_AT_ONCE,
  RUN_UPGRADES_ON_CONTINUE,
  TERMINAL_HOOKS,
  TOOL_WORKER_PATIENCE,
} from '../../src/runtime/patches.js';
import { isRefInput, type RefRunInput } from '../../src/runtime/ref-input.js';
import { hasTerminalHooks } from '../../src/runtime/stage-hooks.js';
import { endsWithOutput } from '../../src/runtime/stage-modes.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import type { PermissionLayer } from '../../src/tools/permissions.js';
import { activities, localActivities, quickOptions, referenceOptions, stepOptions } from '../activities.js';
import { stageEncoding } from '../engine-driver.js';
import { patchesAtOnce } from '../patch-asker.js';
import { toolWatch } from '../tool-worker-watch.js';
import { continueIfDue, stopIfOverBudget } from './continue-as-new.js';
import { askEdge } from './edge-choice.js';
import { notifyEnd, runWebhooks, watchQuestions } from './notify.js';
import { AgentRun } from './run-steps.js';

export async function agentRunWorkflow(
  start: RunInput | WorkerInput | RefRunInput,
): Promise<RunResult | ChildRunResult> {
  // A run that records RUN_PATCHES_AT_ONCE records none of the patches below (src/runtime/patches.ts).
  const { atOnce, ask } = patchesAtOnce(RUN_PATCHES_AT_ONCE);
  // Only a fan-out worker runs its visits inside it, and one that does is steerable throughout:
  // it records that one marker, and other runs none for it.
  const inline = isWorkerStart(start) && ask(INLINE_WORKER);
  // Its visits run inside it, so it asks for them whether they wait out provider outages.
  const providerPatient = inline && ask(PROVIDER_PATIENCE);
  // Their engine operations make promises only for what an activity answers (src/runtime/patches.ts).
  const syncOps = inline && atOnce;
  const steerable = inline || ask(RUN_PATCH);
  const continues = steerable && !inline && ask(RUN_CONTINUES_AS_NEW);
  const patient = ask(TOOL_WORKER_PATIENCE);
  const moves = continues && upgradesOnContinue(start) && ask(RUN_UPGRADES_ON_CONTINUE);
  let run: AgentRun | undefined;
  let notifies = false;
  // Notices go out from delivery workflows of their own (`RUN_NOTIFY_PATIENCE`).
  let deliversApart = false;
  // Answered from the start: before the run knows its blueprint its stream is empty (docs/reference/events.md).
  setHandler(eventsQuery, (ask) => (run?.events ?? new EventLog()).page(ask));
  try {
    const { bp, hash, ceilings, input, seeded, forked } = isWorkerStart(start)
      ? await workerBlueprint(start, inline)
      : await runBlueprint(start);
    // Asked only by runs with webhooks, which no history from before them holds.
    notifies = runWebhooks(input) && ask(RUN_NOTIFY);
    // Asked by runs with webhooks only, right after RUN_NOTIFY, so older histories replay their own deliveries.
    deliversApart = notifies && ask(RUN_NOTIFY_PATIENCE);
    const continuing = continues && (moves ? 'upgrade' : 'stay');
    run = new AgentRun(input, bp, hash, steerable, ceilings, inline, continuing, providerPatient);
    // Its visits inside it ask no patch, so it asks for them, once its blueprint is known and only when it matters.
    run.syncOps = syncOps;
    run.askingToolsNotMcp = inline && anyDiscoveryRulesDiffer(bp) && ask(ASKING_TOOLS_NO_MCP_DISCOVERY);
    run.localInference = inline && anyLocalStage(bp) && patched(LOCAL_INFERENCE);
    // Asked only by runs whose blueprint has such hooks, which no history from before them holds.
    run.terminalHooks = hasTerminalHooks(bp.stages) && patched(TERMINAL_HOOKS);
    const live = run;
    run.toolWatch = toolWatch({ ...input, blueprint: bp }, patient, (absence) =>
      live.operators.showToolWorker(absence),
    );
    setHandler(progressQuery, () => live.progress());
    // A run recorded before people could steer it takes no updates: its visits could not deliver them.
    if (steerable) run.operators.install();
    // The watcher ends with the run; a cancellation is the main path's to handle.
    if (notifies) {
      run.book.carriesTold = ask(NOTIFY_TOLD_CARRIED);
      void watchQuestions(run, deliversApart).catch(() => {});
    }
    let result: RunResult | ChildRunResult;
    // A run that continued as new picks the walk up where its previous run left it; a fork, where its original was.
    const resume = input.resume ?? forked;
    if (resume) {
      run.resumeFrom(resume);
      result = await walk(run);
    } else result = await stages(run, seeded);
    if (notifies) await notifyEnd(input, bp.agent.name, 'completed', { result }, deliversApart);
    return result;
  } catch (err) {
    // A cancelled run ends CANCELED, with its memo and status (docs/reference/operators.md#cancellation).
    if (isCancellation(err)) await run?.cancelled();
    // Continuing as new is no end to tell of: the next run tells.
    if (notifies && run && !(err instanceof ContinueAsNew))
      await notifyEnd(
        run.input,
        run.bp.agent.name,
        isCancellation(err) ? 'cancelled' : 'failed',
        { error: err },
        deliversApart,
      );
    throw err;
  }
}

async function stages(run: AgentRun, seeded?: SeededRegion[]): Promise<RunResult | ChildRunResult> {
  const { bp, input } = run;
  await run.enter(input.child?.stage ?? bp.agent.entryStage);
  await run.seed(undefined, seeded);
  if (input.child?.handoff) await takeHandoff(run, input.child.handoff);
  if (input.child?.seedContext) await run.addSeedContext(input.child.seedContext);
  return walk(run);
}

/** The walk through the stage graph, from the current stage; a run that continued as new starts here. */
async function walk(run: AgentRun): Promise<RunResult | ChildRunResult> {
  const { bp } = run;
  for (;;) {
    await continueIfDue(run);
    await stopIfOverBudget(run);
    const outcome = await run.visit();
    // An output stage ends the run once its answer passed its checks.
    if (endsWithOutput(run.def(), outcome.facts)) return run.complete(outcome.finalContent);
    let route = departure(run.driver.state, bp, outcome.end, outcome.error, run.errorCode(outcome));
    if (run.steerable) run.operators.setStuck(outcome.end === 'stuck');
    if (route.kind === 'rerun') continue;
    // A checkpoint's abort option ends the run as a cancellation does (docs/reference/interaction.md#what-each-answer-does);
    // nobody asked Temporal to cancel it, so Temporal records a failure whose cause is that cancellation.
    if (route.kind === 'abort') throw new CancelledFailure(route.message);
    if (route.kind === 'fail') return run.fail(route.code, route.message, run.lastFailure);
    if (route.kind === 'choose') route = { kind: 'leave', edge: await askEdge(run, route), checks: route.checks };
    if (route.checks && !(await run.checksPass(route.edge))) continue;
    if (route.edge === null) return run.complete(finalOutput(run.driver.state, outcome.finalContent));
    await run.follow(route.edge);
  }
}

interface RunStart {
  bp: Blueprint;
  hash: string;
  ceilings?: PermissionLayer[];
  /** The run's whole input: a fan-out worker's, from what it shares with its siblings. */
  input: RunInput;
  /** A fan-out worker's seeds, when its start resolved them. */
  seeded?: SeededRegion[];
  /** A fork's run: where it picks the walk up. */
  forked?: RunCarry;
}

/**
 * The run's blueprint and its hash: a run started from a blueprint stores it
 * once; a sub-agent's comes from the blob store, where its parent's run put
 * it (docs/reference/sub-agents.md#other-blueprints).
 */
async function runBlueprint(start: RunInput | RefRunInput): Promise<RunStart> {
  // A run that continued as new resolved its blueprint already; its search attributes came with it.
  if (!isRefInput(start) && start.resume) {
    const { blueprint, blueprintHash, ceilings } = start.resume;
    return { bp: blueprint, hash: blueprintHash, ...(ceilings ? { ceilings } : {}), input: start };
  }
  if (!isRefInput(start) && start.fork) return forkStart({ ...start, fork: start.fork });
  const input = isRefInput(start) ? await byReference(start) : start;
  if (input.blueprint) {
    const bp = input.blueprint;
    upsertSearchAttributes([
      { key: BLUEPRINT_KEY, value: bp.agent.name },
      { key: STATUS_KEY, value: 'running' },
    ]);
    const { hash } = await activities.registerBlueprint.executeWithOptions(
      quickOptions(`blueprint: ${bp.agent.name}`),
      [bp],
    );
    return { bp, hash, input };
  }
  const child = input.child;
  if (!child) throw ApplicationFailure.nonRetryable('a run needs a blueprint or a parent run', 'bad-argument');
  const { blueprint, hash, ceilings } = await activities.childBlueprint.executeWithOptions(
    quickOptions(`sub-agent of ${child.parentRunId}`),
    [{ ...childBlueprintOf(child), ceiling: child.lineage.ceiling, ...(child.output ? { output: child.output } : {}) }],
  );
  childAttributes(blueprint, child.parentRunId);
  return { bp: blueprint, hash, ceilings, input };
}

/**
 * A fan-out worker's blueprint and whole input, from what it shares with its
 * siblings (docs/reference/sub-agents.md#history). One that runs its visits inside it starts in one workflow task: a
 * local activity that also resolves the seeds that read nothing from the host.
 */
async function workerBlueprint(start: WorkerInput, inline: boolean): Promise<RunStart> {
  const starting = quickOptions('fan-out worker');
  const { blueprint, hash, ceilings, share, seeded } = inline
    ? await localActivities.workerStart.executeWithOptions(starting, [{ shared: start.shared, task: start.task }])
    : await activities.workerStart.executeWithOptions(starting, [{ shared: start.shared }]);
  childAttributes(blueprint, share.child.parentRunId);
  return { bp: blueprint, hash, ceilings, input: workerRunInput(share, start.task), ...(seeded ? { seeded } : {}) };
}

/** A run started with a pushed blueprint's name: its whole input, recorded as the activity's result. */
async function byReference(start: RefRunInput): Promise<RunInput> {
  // No history from before references holds one, so the marker only tells this run's path apart.
  patched(RUN_BY_REFERENCE);
  return activities.resolveRunInput.executeWithOptions(referenceOptions(`blueprint: ${start.blueprint}`), [start]);
}

/**
 * A fork's run (docs/reference/cluster-runs.md#fork): its blueprint and region set come from a
 * `forkStart` activity, which rebuilds what its original's next inference read; its search
 * attributes and memo were set when `lev fork` started it.
 */
async function forkStart(input: RunInput & { fork: ForkSeed }): Promise<RunStart> {
  // No history from before forks holds one, so the marker only tells this run's path apart.
  patched(RUN_FORK);
  const { from, blueprintHash, base, ops } = input.fork;
  const ceiling = input.child?.lineage.ceiling;
  const start = await activities.forkStart.executeWithOptions(
    quickOptions(`fork of ${from.runId} after turn ${from.turn}${from.stage ? ` of ${from.stage}` : ''}`),
    [
      {
        runId: workflowInfo().workflowId,
        blueprintHash,
        base,
        ops,
        ...(from.model ? { model: from.model } : {}),
        ...(ceiling?.length ? { ceiling } : {}),
      },
    ],
  );
  return {
    bp: start.blueprint,
    hash: start.hash,
    ...(start.ceilings ? { ceilings: start.ceilings } : {}),
    input,
    forked: forkCarry(workflowInfo().workflowId, input, start, Date.now()),
  };
}

function childAttributes(bp: Blueprint, parentRunId: string): void {
  upsertSearchAttributes([
    { key: BLUEPRINT_KEY, value: bp.agent.name },
    { key: STATUS_KEY, value: 'running' },
    { key: PARENT_KEY, value: parentRunId },
  ]);
}

/**
 * `[[transforms]]`: writes what the parent handed into the regions it maps to, each through its
 * region's own rules; a `summarize` region is folded at the first maintenance point, by the
 * summariser compaction uses. A text a region refuses is a warning of the run, never its failure.
 */
async function takeHandoff(run: AgentRun, parts: HandoffPart[]): Promise<void> {
  const texts = await activities.handoffTexts.executeWithOptions(
    stepOptions(run.input.options, `context from the parent: ${parts.map((p) => p.region).join(', ')}`),
    [{ runId: run.runId, parts, encoding: stageEncoding(run.bp, run.driver.stage) }],
  );
  for (const text of texts) {
    const next = afterHandoffWrite(text, await run.driver.apply(handoffWrite(text)));
    if (next) await run.driver.apply(next);
  }
}
