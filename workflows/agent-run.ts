/**
 * An agent run: seeds the region set, then walks the stage graph, one child
 * stage workflow per visit. Between visits it chooses the edge, runs the
 * completion checks (gates), applies the edge transform and enters the next
 * stage. The region set travels as plain data; large text stays in the blob
 * store.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  executeChild,
  log,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { EdgeDef } from '../src/blueprint/types.js';
import {
  type Content,
  chooseEdge,
  completionEdges,
  createRunState,
  findRegion,
  outcomeEdge,
} from '../src/context/index.js';
import type { GateFacts } from '../src/runtime/ops.js';
import { BLUEPRINT_KEY, STAGE_KEY, STATUS_KEY } from '../src/runtime/search-attributes.js';
import type { SeededRegion } from '../src/runtime/seeding.js';
import {
  addUsage,
  emptyUsage,
  type Progress,
  type RunInput,
  type RunResult,
  regionBars,
  type StageOutcome,
  type UsageTotals,
  type VisitFacts,
} from '../src/runtime/types.js';
import { acts, callOptions, EngineDriver } from './engine-driver.js';
import { stageWorkflow } from './stage.js';

export const runProgressQuery = defineQuery<Progress>('progress');

function freshFacts(): VisitFacts {
  return {
    modifyingCallSucceeded: false,
    modifyingCallDenied: false,
    idleInferences: 0,
    toolCallsWithoutProgress: 0,
    editsPerPath: {},
    lastProgressAt: Date.now(),
  };
}

export async function agentRunWorkflow(input: RunInput): Promise<RunResult> {
  const runId = workflowInfo().workflowId;
  const bp = input.blueprint;
  const seedWarnings: string[] = [];
  let usage = emptyUsage();
  const perStage: Record<string, UsageTotals> = {};
  const stagesVisited: string[] = [];
  let inferences = 0;
  let visitTurns = 0;
  let facts = freshFacts();
  let childId: string | undefined;
  let status: RunResult['status'] = 'running';

  upsertSearchAttributes([
    { key: BLUEPRINT_KEY, value: bp.agent.name },
    { key: STATUS_KEY, value: 'running' },
  ]);
  const { hash: blueprintHash } = await acts.registerBlueprint.executeWithOptions(
    { startToCloseTimeout: '1 minute', summary: `blueprint: ${bp.agent.name}` },
    [bp],
  );
  const driver = new EngineDriver(
    { runId, blueprintHash, bp, options: input.options, log: (line) => log.info(line) },
    { state: createRunState(bp), snapshot: null, ops: [] },
  );

  setHandler(runProgressQuery, () => {
    const regions = regionBars(driver.state);
    return {
      runId,
      status,
      stage: driver.state.stage,
      inferences,
      visitTurns,
      regions,
      window: {
        max: driver.state.window.max,
        used: regions.reduce((a, r) => a + r.tokens, 0),
        gap: driver.state.window.gap,
      },
      gatesForced: driver.state.gatesForced,
      usage,
      ...(childId ? { stageWorkflowId: childId } : {}),
    };
  });

  const result = async (output: Content, error?: string): Promise<RunResult> => {
    const text =
      typeof output === 'string'
        ? output
        : await acts.readText.executeWithOptions({ startToCloseTimeout: '1 minute', summary: 'final output' }, [
            output,
          ]);
    upsertSearchAttributes([{ key: STATUS_KEY, value: status }]);
    upsertMemo({
      gatesForced: driver.state.gatesForced,
      requiredRegionsAbandoned: driver.state.requiredRegionsAbandoned,
      stages: stagesVisited,
      diagnostics: driver.state.diagnostics.slice(-50),
      seedWarnings,
    });
    return {
      runId,
      status,
      output: text,
      ...(error ? { error } : {}),
      regions: regionBars(driver.state),
      gatesForced: driver.state.gatesForced,
      usage: { ...usage, perStage },
      stages: stagesVisited,
      diagnostics: driver.state.diagnostics,
    };
  };

  const fail = async (code: string, message: string): Promise<never> => {
    status = 'failed';
    const partial = await result('', message);
    throw ApplicationFailure.nonRetryable(message, code, partial);
  };

  const seedRegions = async (regions?: string[]) => {
    let seeded: SeededRegion[];
    try {
      seeded = await acts.resolveSeeds.executeWithOptions(
        callOptions(input.options, regions ? `seeds: refresh ${regions.join(', ')}` : 'seeds', 3),
        [
          {
            blueprintHash,
            ...(input.task !== undefined ? { task: input.task } : {}),
            caller: input.caller,
            workdir: input.workdir,
            noSeedCommands: input.options.noSeedCommands,
            stage: driver.stage,
            ...(regions ? { regions } : {}),
          },
        ],
      );
    } catch (err) {
      if (err instanceof ActivityFailure)
        return fail(
          err.cause instanceof ApplicationFailure ? (err.cause.type ?? 'seed-failed') : 'seed-failed',
          err.cause?.message ?? err.message,
        );
      throw err;
    }
    for (const s of seeded) {
      seedWarnings.push(...s.warnings);
      if (regions && s.texts.length === 0) continue;
      await driver.apply({ kind: 'seed', region: s.region, texts: s.texts, replaceSeeded: regions !== undefined });
    }
  };

  const enter = async (stage: string) => {
    const entered = await driver.apply<{ ok: boolean; code?: string; message?: string }>({ kind: 'enterStage', stage });
    if (entered && entered.ok === false)
      await fail(entered.code ?? 'stage-entry-failed', entered.message ?? `could not enter stage ${stage}`);
    stagesVisited.push(stage);
    visitTurns = 0;
    facts = freshFacts();
    upsertSearchAttributes([{ key: STAGE_KEY, value: stage }]);
  };

  await enter(bp.agent.entryStage);
  await seedRegions();

  for (let visit = 1; ; visit++) {
    const stage = driver.stage;
    childId = `${runId}.${visit}.${stage}`;
    let outcome: StageOutcome;
    try {
      outcome = await executeChild(stageWorkflow, {
        workflowId: childId,
        args: [
          {
            runId,
            blueprintHash,
            blueprint: bp,
            stage,
            carried: driver.carried(),
            workdir: input.workdir,
            options: input.options,
            inferences,
            visitTurns,
            facts,
            usage: emptyUsage(),
          },
        ],
      });
    } catch (err) {
      return fail('stage-failed', `stage "${stage}" failed: ${(err as Error).message}`);
    }
    driver.adopt(outcome.carried);
    inferences = outcome.inferences;
    visitTurns = outcome.visitTurns;
    facts = outcome.facts;
    usage = addUsage(usage, outcome.usage);
    perStage[stage] = addUsage(perStage[stage] ?? emptyUsage(), outcome.usage);

    // docs/reference/stages.md#normal-completion: which edge the visit leaves by. Completion checks run only on
    // normal completion, never on error, stuck, iteration-cap or dead-end routes.
    let edge: EdgeDef | null = null;
    let checks = outcome.end === 'completed';
    let normal = outcome.end === 'completed';
    if (outcome.end !== 'completed') {
      const route = outcomeEdge(driver.state, bp, outcome.end);
      if (route.kind === 'continue') continue;
      if (route.kind === 'fail')
        return fail(
          'stage-failed',
          `stage "${stage}" ended with ${outcome.end}${outcome.error ? ` (${outcome.error})` : ''} and has no error or dead_end edge`,
        );
      if (route.kind === 'edge') edge = route.edge;
      else normal = true;
    }
    if (normal) {
      const route = completionEdges(driver.state, bp);
      if (route.kind === 'take') edge = route.edge;
      else if (route.kind === 'dead_end') {
        if (!route.edge)
          return fail(
            'dead-end',
            `stage "${stage}" reached a dead end: every edge out of it has used up its revisits, and it has no dead_end or error edge`,
          );
        edge = route.edge;
        checks = false;
      } else if (route.kind === 'choose') {
        const options = route.allowComplete
          ? [...route.edges.map((e) => e.target), 'DONE']
          : route.edges.map((e) => e.target);
        const reply = await acts.infer.executeWithOptions(callOptions(input.options, `edge choice: ${stage}`), [
          {
            runId,
            blueprintHash,
            ...driver.replayInput(),
            stage,
            turn: inferences,
            stageTurn: visitTurns,
            purpose: 'edge-choice',
            question: route.prompt,
            options,
          },
        ]);
        inferences++;
        usage = addUsage(usage, { calls: 1, ...reply.usage });
        perStage[stage] = addUsage(perStage[stage] ?? emptyUsage(), { calls: 1, ...reply.usage });
        const choice = chooseEdge(
          driver.state,
          bp,
          typeof reply.content === 'string' ? reply.content : reply.content.preview,
        );
        if (choice.kind === 'edge') {
          edge = choice.edge;
          if (choice.unmatched) {
            await driver.apply({
              kind: 'diagnostic',
              code: 'edge-choice-unmatched',
              severity: 'warning',
              detail: `stage "${stage}" answered without naming an edge; took "${edge.target}"`,
            });
          }
        }
      }
    }

    if (checks) {
      const gateFacts: GateFacts = {
        modifyingCallSucceeded: facts.modifyingCallSucceeded,
        modifyingCallDenied: facts.modifyingCallDenied,
      };
      const gate = await driver.apply<{ outcome: 'pass' | 'block' | 'forced' }>({
        kind: 'gate',
        fromStage: stage,
        target: edge?.target ?? null,
        facts: gateFacts,
      });
      if (gate.outcome === 'block') continue;
    }

    if (edge === null) {
      status = 'completed';
      const final = findRegion(driver.state, 'final_output');
      const output =
        final && final.entries.length > 0
          ? (final.entries.map((e) => e.content).find((c) => c !== '') ?? outcome.finalContent)
          : outcome.finalContent;
      return result(output);
    }
    await driver.apply({ kind: 'transform', from: stage, target: edge.target });
    await enter(edge.target);
    const refresh = driver.state.regions
      .filter((r) => !r.hidden && r.def.seed?.refresh === 'each_stage')
      .map((r) => r.name);
    if (refresh.length > 0) await seedRegions(refresh);
  }
}
