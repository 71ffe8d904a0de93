/**
 * One inference of a stage visit (`stage.ts` calls it each turn): the
 * `infer` activity, and what the visit does when it fails. A visit started
 * with `PROVIDER_PATIENCE` waits out a provider outage on a durable timer,
 * showing `waiting` for the provider, and moves its model chain on and back
 * as `src/runtime/provider-patience.ts` decides
 * (docs/reference/long-runs.md#provider-outages); earlier visits fail after
 * the activity's retries or fall back for good. A visit started with
 * `LOCAL_INFERENCE` calls it as a local activity, with the same attempts and
 * the same failures (`src/runtime/inference-shape.ts`). Workflow code.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  TemporalFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { InferInput, InferOutput, Patience } from '../../src/runtime/index.js';
import { failureCode } from '../../src/runtime/index.js';
import { fallbackDetail, MODEL_FALLBACK, stageChain } from '../../src/runtime/model-fallback.js';
import {
  afterFailure,
  avoidedEntries,
  HAND_BACK_AFTER,
  isWaitable,
  PROVIDER_UNAVAILABLE,
  patienceOptions,
} from '../../src/runtime/provider-patience.js';
import { activities, callOptions, localActivities, localCallOptions } from '../activities.js';
import type { SubAgents } from '../agents/sub-agents.js';
import type { StageOperators } from './stage-operators.js';
import { type CallingVisit, discoverTools, scanTools } from './tool-calls.js';

/** What an inference needs of its visit (`StageVisit`), and the transitions it moves the visit's state by. */
export interface InferringVisit extends Pick<CallingVisit, 'input' | 'def' | 'stage' | 'driver' | 'patches' | 'reach'> {
  readonly operators: Pick<StageOperators, 'inferring' | 'state' | 'handOverAsked' | 'waitForProvider'>;
  readonly agents: Pick<SubAgents, 'open'>;
  readonly patience: Patience;
  readonly inferences: number;
  readonly visitTurns: number;
  countInference(reply: InferOutput): void;
  providerAnswered(model: string | undefined): void;
  keepPatience(patience: Patience): void;
}

/** A reply; a failure the visit ends on; or `again`: the chain moved on, or a wait was cut short, and the turn starts over. */
export type TurnReply = InferOutput | { failed: string; code?: string } | { again: true };

/**
 * What a failed `infer` call said: its failure type, the chain entry that failed, and its message. An
 * activity's failure comes wrapped in an `ActivityFailure`; a local activity's comes as it was thrown.
 */
function failureOf(err: TemporalFailure): { type?: string; model?: string; message: string; retryAfterMs?: number } {
  const source = err instanceof ActivityFailure ? err.cause : err;
  const cause = source instanceof ApplicationFailure ? source : undefined;
  const detail = cause?.details?.[0] as { model?: unknown; retryAfterMs?: unknown } | undefined;
  return {
    ...(cause?.type ? { type: cause.type } : {}),
    ...(typeof detail?.model === 'string' ? { model: detail.model } : {}),
    ...(typeof detail?.retryAfterMs === 'number' ? { retryAfterMs: detail.retryAfterMs } : {}),
    message: source?.message ?? err.message,
  };
}

export async function inferTurn(visit: InferringVisit & CallingVisit): Promise<TurnReply> {
  const { bookkeeping, patience: patient } = visit.patches;
  await discoverTools(visit);
  await scanTools(visit);
  const catalog = visit.reach ? { catalog: visit.reach.catalog } : {};
  const written = visit.written?.offered ? { written: visit.written.offered } : {};
  const chain = stageChain(visit.def);
  for (;;) {
    const replay = visit.driver.replayInput();
    const sent = replay.ops.length;
    const avoid = patient ? avoidedEntries(visit.patience, chain, Date.now()) : [];
    const input: InferInput = {
      runId: visit.input.runId,
      blueprintHash: visit.input.blueprintHash,
      ...replay,
      stage: visit.stage,
      turn: visit.inferences,
      stageTurn: visit.visitTurns,
      purpose: 'turn',
      ...(bookkeeping && visit.driver.snapshotDue() ? { snapshot: true } : {}),
      ...catalog,
      ...written,
      ...(patient ? { handBackAfter: HAND_BACK_AFTER } : {}),
      ...(avoid.length > 0 ? { avoid } : {}),
      ...(visit.patches.stableTools ? { stableTools: true } : {}),
    };
    const summary = `inference: ${visit.stage}, turn ${visit.visitTurns + 1}`;
    let reply: InferOutput;
    visit.operators.inferring = true;
    try {
      reply = visit.patches.localInference
        ? await localActivities.infer.executeWithOptions(localCallOptions(visit.input.options, summary), [input])
        : await activities.infer.executeWithOptions(callOptions(visit.input.options, summary), [input]);
    } catch (err) {
      // A cancelled run stops here: no note, no fallback (docs/reference/operators.md#cancellation).
      const failed = err instanceof ActivityFailure || (visit.patches.localInference && err instanceof TemporalFailure);
      if (!failed || isCancellation(err)) throw err;
      const failure = failureOf(err);
      if (patient && isWaitable(failure.type)) {
        const waited = await waitOut(visit, { ...failure, type: failure.type ?? '' }, chain);
        if (waited === 'again') continue;
        return waited;
      }
      return fallBack(visit, failure);
    } finally {
      visit.operators.inferring = false;
    }
    if (bookkeeping) visit.driver.afterInference(reply, sent);
    if (patient && (visit.patience.outage || visit.patience.detours.length > 0)) {
      visit.providerAnswered(reply.model);
      await visit.operators.waitForProvider(undefined);
    }
    visit.countInference(reply);
    return reply;
  }
}

/**
 * After a waitable failure: the chain moves on (recorded as `provider-unavailable`), the visit
 * gives up, or it waits on a timer and says so; `again` when the turn is to be tried once more.
 */
async function waitOut(
  visit: InferringVisit,
  failure: { type: string; model?: string; message: string; retryAfterMs?: number },
  chain: string[],
): Promise<'again' | TurnReply> {
  const model = failure.model ?? chain[0] ?? visit.def.model;
  const step = afterFailure(
    visit.patience,
    { ...failure, model },
    chain,
    patienceOptions(visit.input.blueprint),
    Date.now(),
  );
  if (step.kind === 'give-up') {
    await visit.operators.waitForProvider(undefined);
    return { failed: step.message, code: PROVIDER_UNAVAILABLE };
  }
  visit.keepPatience(step.patience);
  if (step.kind === 'switch') {
    await visit.driver.apply({
      kind: 'diagnostic',
      code: PROVIDER_UNAVAILABLE,
      severity: 'warning',
      detail: step.detail,
    });
    return { again: true };
  }
  await visit.operators.waitForProvider(step.wait);
  // A pause ends the wait early, and so does a hand-over or a history Temporal finds long when the
  // visit can go on as new (it holds no open sub-agents); the turn starts over.
  const cut = await condition(
    () =>
      visit.operators.state.paused ||
      (!visit.agents.open && (visit.operators.handOverAsked || workflowInfo().continueAsNewSuggested)),
    step.ms,
  );
  return cut ? { again: true } : 'again';
}

/** A visit of an earlier version, or a failure that is not an outage: a fallback for good, else the failure. */
async function fallBack(
  visit: InferringVisit,
  failure: { type?: string; model?: string; message: string },
): Promise<TurnReply> {
  const fallback = fallbackDetail(visit.def, visit.driver.state.diagnostics, failure);
  const code = failureCode(failure.type, failure.message);
  if (!fallback) return { failed: failure.message, ...(code ? { code } : {}) };
  await visit.driver.apply({ kind: 'diagnostic', code: MODEL_FALLBACK, severity: 'warning', detail: fallback });
  return { again: true };
}
