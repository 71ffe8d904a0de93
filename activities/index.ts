/**
 * Every activity the Leviath worker registers: thin adapters that add
 * Temporal's attempt number, heartbeats and failure types to the library
 * functions in `src/runtime/`.
 */
import { activityInfo, Context, cancellationSignal, heartbeat } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { withBlobRun } from '../src/blobs/index.js';
import { openBlueprintStore } from '../src/blueprints-store/configured.js';
import type { BlueprintStore } from '../src/blueprints-store/pushed-blueprints.js';
import { runInputFromRef } from '../src/blueprints-store/run-input.js';
import type { Content, CountedText } from '../src/context/index.js';
import { isLevError } from '../src/errors.js';
import { recordToolCall } from '../src/metrics/leviath.js';
import { deliver } from '../src/notify/deliver.js';
import { type HandBack, isProviderError, providerTimeoutMs, toActivityFailure } from '../src/providers/index.js';
import type { ForkStart, ForkStartRequest, FoundTools, ScanInput } from '../src/runtime/activity-types.js';
import type { HandoffText } from '../src/runtime/agents/handoff.js';
import type { WorkerShare } from '../src/runtime/agents/worker-spec.js';
import { messageUpdate } from '../src/runtime/messages.js';
import { answerKey } from '../src/runtime/node/answered-calls.js';
import {
  type ChildBlueprintRequest,
  type ChildStart,
  childBlueprint,
  type FanOutJoinRequest,
  type FanOutReportRequest,
  fanOutJoin,
  fanOutReport,
  type WorkerStart,
  workerStart,
} from '../src/runtime/node/child-runs.js';
import { finalOutputText } from '../src/runtime/node/final-output.js';
import { forkStart } from '../src/runtime/node/fork-start.js';
import { handBackOf, type InferInput, type InferOutput, infer, slotWaitMs } from '../src/runtime/node/inference.js';
import { type DiscoveredTools, type DiscoverInput, discoverStageTools } from '../src/runtime/node/mcp-tools.js';
import { providerSignal } from '../src/runtime/node/provider-signal.js';
import { pollerAges } from '../src/runtime/node/queue-pollers.js';
import { defaultRuntimeConfig, RunStore, type RuntimeConfig } from '../src/runtime/node/run-store.js';
import { resolveRunSeeds, type SeededRegion, type SeedRequest } from '../src/runtime/node/seeding.js';
import { type SummariseInput, type SummaryResult, summariseEntries } from '../src/runtime/node/summaries.js';
import { countText as count, cutText as cut, handoffTexts, joinText as join } from '../src/runtime/node/text.js';
import { runToolCall, type ToolInput, type ToolResultOut } from '../src/runtime/node/tool-call.js';
import { scanWrittenTools } from '../src/runtime/node/written-tools.js';
import type { RecordedOp } from '../src/runtime/ops.js';
import type { RefRunInput } from '../src/runtime/ref-input.js';
import type { HandoffPart, RunInput } from '../src/runtime/types.js';
import type { Blueprint } from '../src/shapes/frozen-blueprint.js';
import type { Encoding } from '../src/shapes/model-info.js';
import type { StreamBeat } from '../src/shapes/run-events.js';
import type { Notice, Webhook } from '../src/shapes/webhooks.js';
import { modelSpan, toolSpan } from '../src/telemetry/tracing.js';
import { ping } from './ping-activity.js';

/**
 * User errors and provider failures become typed Temporal failures; anything else is retried.
 * Blobs written meanwhile are recorded as the run's (`runId`, else the calling workflow's id),
 * which is what keeps them from `lev blobs gc`.
 */
async function guarded<T>(work: () => Promise<T>, runId?: string, handBack?: HandBack): Promise<T> {
  try {
    return await withBlobRun(runId ?? activityInfo().workflowExecution?.workflowId, work);
  } catch (err) {
    if (isProviderError(err)) {
      const { attempt, retryPolicy } = activityInfo();
      throw toActivityFailure(
        err,
        {
          attempt,
          ...(retryPolicy?.maximumAttempts !== undefined ? { maximumAttempts: retryPolicy.maximumAttempts } : {}),
        },
        handBack,
      );
    }
    if (isLevError(err)) throw ApplicationFailure.nonRetryable(`[${err.code}] ${err.message}`, err.code);
    throw err;
  }
}

/**
 * Heartbeats while long work runs, so a dead worker's call is retried within the heartbeat timeout,
 * each time with what `details` says then (the reply's text so far, for an inference).
 */
async function withHeartbeat<T>(work: () => Promise<T>, details: () => unknown = () => undefined): Promise<T> {
  const timeout = activityInfo().heartbeatTimeoutMs;
  if (!timeout) return work();
  const timer = setInterval(() => heartbeat(details()), Math.max(500, Math.floor(timeout / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Whether the attempt's workflow run is still open; true when the server cannot be asked. */
async function attemptRunOpen({ client, info }: Context): Promise<boolean> {
  const run = info.workflowExecution;
  if (!run) return true;
  try {
    const { status } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    return status.name === 'RUNNING';
  } catch {
    return true;
  }
}

export function createActivities(config: RuntimeConfig = defaultRuntimeConfig()) {
  const store = new RunStore(config);
  // Opened on the first run by reference: a worker that resolves none never connects to it.
  let blueprints: BlueprintStore | undefined;
  return {
    ping,

    /** Stores the blueprint once, so later calls carry its hash instead of the whole document. */
    async registerBlueprint(bp: Blueprint): Promise<{ hash: string }> {
      return guarded(async () => ({ hash: await store.putBlueprint(bp) }));
    },

    /** A fork's run starts from the region set its original had after the turn it was forked at (docs/reference/cluster-runs.md#fork). */
    async forkStart(req: ForkStartRequest): Promise<ForkStart> {
      return guarded(() => withHeartbeat(() => forkStart(store, req)), req.runId);
    },

    /** A run started by reference gets its pushed blueprint (docs/reference/cluster-runs.md#blueprints-by-reference). */
    async resolveRunInput(input: RefRunInput): Promise<RunInput & { blueprint: Blueprint }> {
      return guarded(async () => {
        blueprints ??= openBlueprintStore(config.env);
        return runInputFromRef(blueprints, input, undefined, config.env);
      });
    },

    /** Tells one webhook of a run's event; a failed delivery is retried with backoff, under the same delivery id. */
    async notifyWebhook(req: { webhook: Webhook; notice: Notice }): Promise<{ status: number }> {
      return guarded(() => deliver(req.webhook, req.notice, config.env, cancellationSignal()), req.notice.runId);
    },

    async resolveSeeds(req: SeedRequest): Promise<SeededRegion[]> {
      return guarded(() => withHeartbeat(() => resolveRunSeeds(store, req)));
    },

    /** One model call; an attempt of a call that already answered returns that answer (`answered-calls.ts`). */
    async infer(input: InferInput): Promise<InferOutput> {
      const info = activityInfo();
      // Taken now: the abort listener runs outside the activity's async context.
      const context = Context.current();
      // A turn's text goes out on heartbeats as it streams: the server keeps the latest, not history.
      // A local activity has no heartbeats, so its text reaches readers whole (docs/reference/events.md).
      let beat: StreamBeat | undefined;
      const onText = (text: string) => {
        beat = { turn: input.turn, text };
        heartbeat(beat);
      };
      const ctx = {
        attempt: info.attempt,
        ...(input.purpose === 'turn' && !info.isLocal ? { onText } : {}),
        signal: providerSignal(context, () => attemptRunOpen(context)),
        ...(info.workflowExecution ? { key: answerKey(info.workflowExecution.runId, input, info.isLocal) } : {}),
        slotDeadline:
          info.currentAttemptScheduledTimestampMs +
          slotWaitMs(info.startToCloseTimeoutMs, providerTimeoutMs(config.env)),
      };
      return modelSpan(input, () =>
        guarded(
          () =>
            withHeartbeat(
              () => infer(store, input, ctx),
              () => beat,
            ),
          input.runId,
          handBackOf(input),
        ),
      );
    },

    async runTool(input: ToolInput): Promise<ToolResultOut> {
      // A call scheduled again after it waited for its tool worker counts the attempts made before (src/runtime/tool-patience.ts).
      const attempt = activityInfo().attempt + (input.attemptsBefore ?? 0);
      // Its first heartbeat says it started, so a later attempt that is never taken still knows.
      heartbeat({ attempt });
      try {
        const out = await toolSpan({ tool: input.call.name, runId: input.runId, stage: input.stage }, () =>
          guarded(
            () =>
              withHeartbeat(
                () => runToolCall(store, input, attempt, cancellationSignal()),
                () => ({ attempt }),
              ),
            input.runId,
          ),
        );
        recordToolCall(input.call.name, out.denied ? 'denied' : out.isError ? 'error' : 'ok');
        return out;
      } catch (err) {
        recordToolCall(input.call.name, 'failed');
        throw err;
      }
    },

    /** Whether a tool worker polls a run's tool queue: how long ago the server saw each of its pollers. */
    async toolQueuePollers(req: { taskQueue: string }): Promise<{ pollerAgesMs: number[] }> {
      const { client } = Context.current();
      return pollerAges(client, client.options.namespace, req.taskQueue);
    },

    /** Asks the MCP servers for their tools once per visit; the workflow records the answer (docs/reference/mcp.md#discovery). */
    async discoverTools(input: DiscoverInput): Promise<DiscoveredTools> {
      return guarded(() => withHeartbeat(() => discoverStageTools(store, input)), input.runId);
    },

    /** The scripts the run wrote that a turn of a stage is offered (docs/reference/script-tools.md#tools-a-run-writes). */
    async scanTools(input: ScanInput): Promise<FoundTools> {
      return guarded(() => scanWrittenTools(store, input), input.runId);
    },

    async summarise(input: SummariseInput): Promise<SummaryResult> {
      return guarded(() => withHeartbeat(() => summariseEntries(store, input, activityInfo().attempt)), input.runId);
    },

    async countText(req: { text: string; encoding: Encoding }): Promise<number> {
      return count(req.text, req.encoding);
    },

    async cutText(req: {
      runId?: string;
      content: Content;
      target: number;
      marker: string;
      encoding: Encoding;
    }): Promise<CountedText> {
      return guarded(() => withHeartbeat(() => cut(store.blobs, req)), req.runId);
    },

    /** Joins texts, some of them stored, into one (a `context_read` of stored entries). */
    async joinText(req: { runId?: string; parts: Content[] }): Promise<Content> {
      return guarded(() => withHeartbeat(() => join(store.blobs, req.parts)), req.runId);
    },

    /** What a child writes of the context its parent handed it (docs/reference/sub-agents.md#context-transforms). */
    async handoffTexts(req: { runId: string; parts: HandoffPart[]; encoding: Encoding }): Promise<HandoffText[]> {
      return guarded(() => withHeartbeat(() => handoffTexts(store.blobs, req.parts, req.encoding)), req.runId);
    },

    async saveSnapshot(req: {
      runId: string;
      blueprintHash: string;
      base: string | null;
      ops: RecordedOp[];
    }): Promise<string> {
      return guarded(
        () =>
          withHeartbeat(async () =>
            store.snapshot(req.runId, await store.blueprint(req.blueprintHash), req.base, req.ops),
          ),
        req.runId,
      );
    },

    /** The blueprint a sub-agent's run starts with (docs/reference/sub-agents.md#other-blueprints). */
    async childBlueprint(req: ChildBlueprintRequest): Promise<ChildStart> {
      return guarded(() => childBlueprint(store, req));
    },

    /** Stores what the workers of one fan-out share, once; each worker starts with its hash. */
    async storeWorkerShare(req: { runId: string; share: WorkerShare }): Promise<string> {
      return guarded(async () => (await store.blobs.put(JSON.stringify(req.share))).hash, req.runId);
    },

    /** A fan-out worker's start: what it shares with its siblings, its blueprint, and, given its task, its seeds. */
    async workerStart(req: { shared: string; task?: string }): Promise<WorkerStart> {
      return guarded(() => workerStart(store, req.shared, req.task));
    },

    /** The merged report of a fan-out, each worker's section cut to its share. */
    async fanOutReport(req: FanOutReportRequest): Promise<{ content: Content; tokens: number }> {
      return guarded(() => withHeartbeat(() => fanOutReport(store, req)), req.runId);
    },

    /** `send_to_agent`: a message to a sub-agent's run, through its operator `message` update. */
    async sendToAgent(req: { id: string; message: string }): Promise<void> {
      await Context.current()
        .client.workflow.getHandle(req.id)
        .executeUpdate(messageUpdate, { args: [req.message] });
    },

    /** The merged report of a sharded fan-out, from its shards' parts. */
    async fanOutJoin(req: FanOutJoinRequest): Promise<{ content: Content; tokens: number }> {
      return guarded(() => withHeartbeat(() => fanOutJoin(store, req)), req.runId);
    },

    /** Full text of a result that may live in the blob store (the run's final output). */
    async readText(content: Content): Promise<string> {
      return guarded(() => finalOutputText(store.blobs, content));
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
