/**
 * What an operator reads about runs (`lev ps`, `lev show`, `lev attach`):
 * Temporal's visibility and memo for every run, plus the `progress` query
 * with a short deadline for open ones. A run no worker answers for still
 * lists, with what visibility and the memo know.
 */

import { type Client, type WorkflowExecutionInfo, WorkflowNotFoundError } from '@temporalio/client';
import { openBlobStore, parseBlobSpec } from '../blobs/index.js';
import { LevError } from '../errors.js';
import { isWorkerStart, type WorkerInput, type WorkerShare, workerRunInput } from '../runtime/agents/worker-spec.js';
import { addressFlag } from '../runtime/defaults.js';
import { providerWaitText } from '../runtime/details.js';
import { defaultRuntimeConfig } from '../runtime/node/run-store.js';
import { answerArguments } from '../runtime/people/asks.js';
import { BLUEPRINT_KEY, STAGE_KEY, STATUS_KEY } from '../runtime/search-attributes.js';
import { toolWorkerCommand } from '../runtime/tool-queue.js';
import type {
  ForkOrigin,
  PendingAsk,
  Progress,
  RegionBar,
  RejectedMessages,
  RunInput,
  RunMemo,
  RunResult,
  UsageTotals,
} from '../runtime/types.js';
import { codecKeyWait } from './codec-wait.js';
import { runProgress } from './operators.js';
import { runOutcome, type ToolWait, toolWorkerWait } from './run-client.js';
import { listQuery, type RunFilter, type ShownStatus, shownStatus, stagePath } from './run-list.js';
import { readTaskFailure, type TaskFailure } from './task-failures.js';

/** How long `lev ps` and `lev show` wait for a worker to answer the `progress` query of an open run. */
export const PROGRESS_DEADLINE_MS = 2000;

/** One line of `lev ps` (docs/reference/operators.md#lev-ps). */
export interface RunRow {
  runId: string;
  /** The title the run was started with (docs/reference/cli.md#run-titles); null when none. */
  title: string | null;
  blueprint: string | null;
  stage: string | null;
  status: ShownStatus;
  /** Temporal's own status: `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `TIMED_OUT`. */
  executionStatus: string;
  /** Inferences so far (turns and edge choices); null when no worker answered for an open run. */
  turns: number | null;
  /** Prompt plus completion tokens so far; null when unknown. */
  tokens: number | null;
  /** Estimated cost in USD; null when unknown. */
  costUsd: number | null;
  startedAt: string;
  closedAt: string | null;
  ageSeconds: number;
  /** True when a worker answered the `progress` query just now. */
  live: boolean;
  /** What an open run waits for (`Progress.waiting`: `approval`, `tool-worker-missing`, `provider-unavailable`, …, or `codec-key-missing`); null when nothing, or unknown. */
  waiting: string | null;
  /** Why a live run is `waiting` for no person, naming what it waits for: `provider-unavailable <provider>`. */
  reason?: string;
}

function usageTokens(usage: UsageTotals | undefined): number | null {
  return usage ? usage.promptTokens + usage.completionTokens : null;
}

/**
 * One row; `keyWait` is what of a run no worker answers for waits for a
 * worker with the codec key (`codec-wait.ts`), which makes it `waiting`.
 */
function rowOf(
  info: Omit<WorkflowExecutionInfo, 'raw'>,
  progress: Progress | undefined,
  now: number,
  keyWait?: string,
): RunRow {
  const memo = (info.memo ?? {}) as RunMemo;
  const attrs = info.typedSearchAttributes;
  const usage = progress?.usage ?? memo.usage;
  const turns = progress ? progress.inferences : (memo.inferences ?? null);
  return {
    runId: info.workflowId,
    title: memo.title ?? null,
    blueprint: attrs.get(BLUEPRINT_KEY) ?? memo.blueprint ?? null,
    stage: progress?.stage ?? attrs.get(STAGE_KEY) ?? null,
    status: keyWait ? 'waiting' : shownStatus(info.status.name, attrs.get(STATUS_KEY)),
    executionStatus: info.status.name,
    turns,
    tokens: usageTokens(usage),
    costUsd: (progress?.cost ?? memo.cost)?.usd ?? null,
    startedAt: info.startTime.toISOString(),
    closedAt: info.closeTime ? info.closeTime.toISOString() : null,
    ageSeconds: Math.max(0, Math.floor((now - info.startTime.getTime()) / 1000)),
    live: progress !== undefined,
    waiting: progress?.waiting ?? (keyWait ? 'codec-key-missing' : null),
    ...(progress?.provider ? { reason: `provider-unavailable ${progress.provider.provider}` } : {}),
  };
}

/** Runs `work` over `items`, at most `lanes` at once, keeping their order. */
async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return out;
}

/** The runs a filter names, newest first, at most `limit` of them. */
export async function listRuns(
  client: Client,
  filter: RunFilter,
  opts: { limit?: number; now?: number; deadlineMs?: number } = {},
): Promise<RunRow[]> {
  const { limit = 50, now = Date.now(), deadlineMs = PROGRESS_DEADLINE_MS } = opts;
  const wanted = filter.status;
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query: listQuery(filter) })) {
    // A run that continued as new is listed once, by its live (or last) run.
    if (info.status.name === 'CONTINUED_AS_NEW') continue;
    infos.push(info);
    if (infos.length >= limit && !wanted) break;
  }
  const rows = await inLanes(infos, 8, async (info) => {
    const open = info.status.name === 'RUNNING';
    const progress = open
      ? await runProgress(client, client.workflow.getHandle(info.workflowId), deadlineMs)
      : undefined;
    // Only a run no worker answers for can be held by a worker without the key.
    const keyWait = open && !progress ? await codecKeyWait(client, info.workflowId) : undefined;
    return rowOf(info, progress, now, keyWait);
  });
  return (wanted ? rows.filter((r) => r.status === wanted) : rows).slice(0, limit);
}

/** What a run waits for, as `lev show` says it (docs/reference/operators.md#lev-show). */
export interface Waiting {
  kind:
    | 'approval'
    | 'answer'
    | 'checkpoint'
    | 'reply'
    | 'resume'
    | 'provider'
    | 'tool-worker'
    | 'tool-worker-missing'
    | 'worker'
    | 'codec-key-missing';
  detail: string;
}

/** Everything `lev show` prints about one run (docs/reference/operators.md#lev-show). */
export interface RunView extends RunRow {
  task: string | null;
  /** The stages visited, in order. */
  stages: string[];
  regions: RegionBar[];
  window: Progress['window'] | null;
  gatesForced: Progress['gatesForced'];
  /** Completion attempts of the live visit and how many a gate blocked; null for a closed run. */
  gates: Progress['gates'] | null;
  /** The live visit's last tool calls, newest last. */
  recentCalls: Progress['recentCalls'];
  /** What waits for a person: the call ids `lev approve`, `lev deny` and `lev answer` name. */
  asks: PendingAsk[];
  paused: boolean;
  /** Messages held for a stage that accepts them. */
  heldMessages: number;
  /** Signals the run and its live visit dropped for their shape (docs/reference/operators.md#rejected-messages). */
  rejected: RejectedMessages | null;
  /** The run's and its open visits' workflow tasks that keep failing (docs/reference/operators.md#a-wedged-run). */
  taskFailures: TaskFailure[];
  usage: UsageTotals | null;
  waitingFor: Waiting[];
  taskQueue: string;
  /** The stage visit running now. */
  stageWorkflowId: string | null;
  error: string | null;
  output: { format: string; text: string } | null;
  /** A fork's origin: the run, the turn after which it was forked, the stage and model `lev fork` was given. */
  forkedFrom: ForkOrigin | null;
  /** The runs forked from this one, oldest first (docs/reference/cluster-runs.md#fork). */
  forks: ForkRow[];
}

async function visitIds(client: Client, runId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH '${runId.replace(/'/g, "\\'")}.'` }))
    ids.push(wf.workflowId);
  return ids;
}

/** What a run waits a person for, each with the command that answers it, and a provider it waits for. */
export function personWaits(
  runId: string,
  p: Pick<Progress, 'asks' | 'waiting' | 'paused' | 'stage' | 'provider'>,
  address: string,
): Waiting[] {
  const at = addressFlag(address);
  const waits: Waiting[] = p.asks.map((ask) =>
    ask.kind === 'approval'
      ? {
          kind: 'approval',
          detail: `approval of \`${ask.subject}\` (call ${ask.call}): lev approve ${runId} ${ask.call}${at}, or lev deny ${runId} ${ask.call} --note "…"${at}`,
        }
      : {
          kind: ask.point !== undefined ? 'checkpoint' : 'answer',
          detail: `${ask.point !== undefined ? `checkpoint ${ask.point}, ` : ''}an answer to "${ask.subject}"${ask.options?.length ? ` (${ask.options.map((o, i) => `${i + 1}. ${o}`).join(', ')})` : ''} (call ${ask.call}): lev answer ${runId} ${ask.call} ${answerArguments(ask)}${at}`,
        },
  );
  if (p.waiting === 'message')
    waits.push({ kind: 'reply', detail: `a reply to the interactive stage "${p.stage}": lev msg ${runId} "…"${at}` });
  if (p.paused) waits.push({ kind: 'resume', detail: `resume (the run is paused): lev resume ${runId}${at}` });
  if (p.provider) waits.push({ kind: 'provider', detail: providerWaitText(p.provider).replace(/`/g, '') });
  return waits;
}

/** The description of a run, or `run-not-found`. */
export async function describeRun(client: Client, runId: string, address: string) {
  try {
    return await client.workflow.getHandle(runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      throw new LevError('run-not-found', `No run "${runId}" on ${address}; \`lev ps\` lists the runs there are.`);
    throw err;
  }
}

/** The failing workflow tasks of the run and of its visits that are still open; a workflow that vanished meanwhile has none. */
async function failingTasks(client: Client, runId: string): Promise<TaskFailure[]> {
  const ids = [runId];
  const query = `WorkflowId STARTS_WITH '${runId.replace(/'/g, "\\'")}.' AND ExecutionStatus = 'Running'`;
  for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
  const found = await Promise.all(ids.map((id) => readTaskFailure(client, id).catch(() => undefined)));
  return found.filter((f): f is TaskFailure => f !== undefined);
}

/** One run in full: from its result when it has ended, else from the live `progress` query and visibility. */
export async function viewRun(
  client: Client,
  runId: string,
  address: string,
  opts: { now?: number; deadlineMs?: number } = {},
): Promise<RunView> {
  const { now = Date.now(), deadlineMs = PROGRESS_DEADLINE_MS } = opts;
  const info = await describeRun(client, runId, address);
  const memo = (info.memo ?? {}) as RunMemo;
  const open = info.status.name === 'RUNNING';
  const progress = open ? await runProgress(client, client.workflow.getHandle(runId), deadlineMs) : undefined;
  const result: RunResult | undefined = open ? undefined : await runOutcome(client.workflow.getHandle(runId));
  const keyWait = open && !progress ? await codecKeyWait(client, runId) : undefined;
  const row = rowOf(info, progress, now, keyWait);
  const usage = progress?.usage ?? result?.usage ?? memo.usage ?? null;
  const stages = result?.stages.length ? result.stages : stagePath(runId, await visitIds(client, runId));
  const waitingFor: Waiting[] = [];
  if (open) {
    if (keyWait)
      waitingFor.push({
        kind: 'codec-key-missing',
        detail: `a worker with the codec key (codec-key-missing): ${keyWait} was last tried by a worker without it; start a worker with LEVIATH_CODEC_KEY_FILE set to the deployment's key file`,
      });
    else if (!progress)
      waitingFor.push({
        kind: 'worker',
        detail: `a worker on task queue "${info.taskQueue}": none answered within ${deadlineMs / 1000} s; \`lev attach ${runId}\` runs one`,
      });
    if (progress) waitingFor.push(...personWaits(runId, progress, address));
    const away = progress?.toolWorker;
    if (away)
      waitingFor.push({
        kind: 'tool-worker-missing',
        detail: `a tool worker for ${away.workdir}: none has polled task queue "${away.taskQueue}" for ${Math.round((now - away.since) / 1000)} s; start \`${toolWorkerCommand(away.workdir, away.taskQueue)}\` where the workdir is, or the run fails in ${Math.max(0, Math.round((away.failsAt - now) / 60_000))} min ([run] tool_worker_patience)`,
      });
    const input = await startedInput(client, runId).catch(() => undefined);
    // The run says itself when its tool worker is missing; before it has looked, a call that waits says so.
    const toolQueue = away ? undefined : input?.options.toolTaskQueue;
    const wait: ToolWait | undefined = toolQueue
      ? await toolWorkerWait(
          client,
          [runId, ...(progress?.stageWorkflowId ? [progress.stageWorkflowId] : [])],
          toolQueue,
        )
      : undefined;
    if (wait)
      waitingFor.push({
        kind: 'tool-worker',
        detail: `the tool worker on task queue "${wait.taskQueue}" (${wait.activity} not started for ${Math.round((now - wait.sinceMs) / 1000)} s)`,
      });
  }
  return {
    ...row,
    ...(usage ? { tokens: usageTokens(usage) } : {}),
    task: memo.task ?? null,
    stages,
    regions: progress?.regions ?? result?.regions ?? [],
    window: progress?.window ?? null,
    gatesForced: progress?.gatesForced ?? result?.gatesForced ?? [],
    gates: progress?.gates ?? null,
    recentCalls: progress?.recentCalls ?? [],
    asks: progress?.asks ?? [],
    paused: progress?.paused ?? false,
    heldMessages: progress?.heldMessages ?? 0,
    rejected: progress?.rejected ?? null,
    taskFailures: open ? await failingTasks(client, runId) : [],
    usage,
    waitingFor,
    taskQueue: info.taskQueue,
    stageWorkflowId: progress?.stageWorkflowId ?? null,
    error: result?.error ?? null,
    output:
      result && result.status === 'completed' ? { format: result.outputFormat ?? 'text', text: result.output } : null,
    forkedFrom: memo.forkedFrom ?? null,
    forks: await forksOf(client, runId),
  };
}

/** The input a run was started with: the first event of its history, fetched alone. */
export async function startedInput(client: Client, runId: string): Promise<RunInput> {
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: runId },
    maximumPageSize: 1,
  });
  const raw = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!raw) throw new Error(`run ${runId} has no start input in its history`);
  // The raw history holds payloads as the codec wrote them (an encrypted deployment's are sealed).
  let payload = raw;
  for (const codec of [...client.options.loadedDataConverter.payloadCodecs].reverse())
    [payload] = (await codec.decode([payload])) as [typeof raw];
  const input = client.options.loadedDataConverter.payloadConverter.fromPayload<RunInput | WorkerInput>(payload);
  return isWorkerStart(input) ? sharedInput(input) : input;
}

/** A fan-out worker's whole input: the part it shares with its siblings is in the blob store this machine is configured with. */
async function sharedInput(input: WorkerInput): Promise<RunInput> {
  const config = defaultRuntimeConfig(process.env);
  const store = openBlobStore(parseBlobSpec(config.blobs, config.blobDir), 1);
  try {
    const share = JSON.parse(await store.get(input.shared)) as WorkerShare;
    return workerRunInput(share, input.task);
  } finally {
    if ('close' in store && typeof store.close === 'function') await store.close();
  }
}

/** One fork of a run, as `lev show` lists it. */
export interface ForkRow {
  runId: string;
  turn: number | null;
  stage: string | null;
  model: string | null;
  status: string;
}

/**
 * The forks of a run, oldest first, from visibility (`LeviathForkOf`). A server whose namespace
 * lacks the search attribute has none to list.
 */
export async function forksOf(client: Client, runId: string): Promise<ForkRow[]> {
  const rows: (ForkRow & { at: number })[] = [];
  try {
    for await (const wf of client.workflow.list({ query: `LeviathForkOf = '${runId.replace(/'/g, "\\'")}'` })) {
      if (wf.status.name === 'CONTINUED_AS_NEW') continue;
      const from = ((wf.memo ?? {}) as RunMemo).forkedFrom;
      rows.push({
        runId: wf.workflowId,
        turn: from?.turn ?? null,
        stage: from?.stage ?? null,
        model: from?.model ?? null,
        status: shownStatus(wf.status.name, wf.typedSearchAttributes.get(STATUS_KEY)),
        at: wf.startTime.getTime(),
      });
    }
  } catch (err) {
    if (!String(err).includes('LeviathForkOf')) throw err;
    return [];
  }
  return rows.sort((a, b) => a.at - b.at).map(({ at: _at, ...row }) => row);
}
