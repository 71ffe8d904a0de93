/**
 * What crosses the workflow boundary: run inputs and results, stage-visit
 * inputs and outcomes, and the progress view the CLI and the Web UI query.
 * Plain data only. It also holds the shapes the runtime's modules share
 * (lineage, spend and cost, statuses, asks, output facts), so they import
 * this file and it imports no sibling but `ops.ts` (`test/folders.test.ts`).
 */

import type { RunState } from '../context/state.js';
import type { BlobRef, Content } from '../shapes/content.js';
import type { Blueprint, ContentTransform, OutputSpec } from '../shapes/frozen-blueprint.js';
import type { LogCarry } from '../shapes/run-events.js';
import type { Webhook } from '../shapes/webhooks.js';
import type { PermissionLayer } from '../tools/permissions.js';
import type { RecordedOp } from './ops.js';

export interface RunOptions {
  /** Refuse command seeds for this run (`--no-seed-commands`). */
  noSeedCommands: boolean;
  /** No user answers `ask` permissions; they are refused. */
  unattended: boolean;
  /** Inferences per stage-workflow run before it continues as new. */
  turnsPerRun: number;
  /** Operations kept before the region set is snapshotted to the blob store. */
  opsPerSnapshot: number;
  /** Activity timeouts in seconds (tests shorten them to exercise crash recovery). */
  inferenceTimeoutSecs: number;
  heartbeatTimeoutSecs: number;
  /**
   * Task queue of the worker that can see the workdir: tool calls and seeds go
   * there, everything else to the shared queue. Unset: the run's own queue.
   */
  toolTaskQueue?: string;
  /** A fan-out of more items is split into shards of this many (tests shorten it); unset: 500. */
  fanOutShardItems?: number;
  /** Webhooks told of the run's end (docs/reference/cluster-runs.md#notifications); a sub-agent's run tells none. */
  notify?: Webhook[];
  /** Events in one run of the run workflow before it continues as new (tests shorten it); unset: `RUN_HISTORY_EVENTS`. */
  runHistoryEvents?: number;
  /** A visit reports its counters to its run at most this often (ms of workflow time; tests and benches shorten it); unset: `PROGRESS_REPORT_INTERVAL_MS`. */
  progressReportMs?: number;
  /** A tool call waits this long to be taken before the run asks whether a tool worker polls (tests shorten it); unset: `TOOL_PROBE_MS`. */
  toolProbeMs?: number;
  /** A tool worker the server saw poll this recently is alive, so a killed one is noticed this long after its last poll (tests shorten it); unset: `POLLER_FRESH_MS`. */
  pollerFreshMs?: number;
  /** The waits between a webhook delivery's attempts (tests shorten them); unset: 1 s, doubling up to 5 min. */
  notifyBackoff?: { firstWaitMs: number; longestWaitMs: number };
}

export const DEFAULT_RUN_OPTIONS: RunOptions = {
  noSeedCommands: false,
  unattended: true,
  turnsPerRun: 100,
  opsPerSnapshot: 24,
  inferenceTimeoutSecs: 600,
  // A call whose worker died is retried elsewhere this soon; long enough that a worker far from its
  // server still gets a heartbeat through in time (docs/architecture.md#temporal-limits).
  heartbeatTimeoutSecs: 20,
};

export interface RunInput {
  /** The blueprint of a run a person or a program started; a sub-agent gets `child` instead. */
  blueprint?: Blueprint;
  /** Set on a sub-agent's run: which blueprint it runs, where it starts and where it sits in the tree. */
  child?: ChildRun;
  task?: string;
  /** Named caller values for `input` and `{caller = "k"}` seeds. */
  caller: Record<string, string>;
  /** Absolute working directory the tools and seeds are confined to. */
  workdir: string;
  options: RunOptions;
  /** Set on a run that continued as new: where its previous run left off (`src/runtime/continuation.ts`). */
  resume?: RunCarry;
  /** Set on a fork's run (`lev fork`): the run it was forked from and the region set it starts with. */
  fork?: ForkSeed;
}

/** What a fork was made from, as `lev fork` was given it (docs/reference/cluster-runs.md#fork). */
export interface ForkOrigin {
  /** The run forked. */
  runId: string;
  /** The fork starts after this turn: of the run, or of `stage` when given. */
  turn: number;
  stage?: string;
  /** `--model`: every stage of the fork uses this model. */
  model?: string;
}

/**
 * A fork's start (docs/reference/cluster-runs.md#fork): the region set the
 * original's next inference read (a snapshot and the operations since, as
 * its history recorded them), where that inference was, and its counters.
 */
export interface ForkSeed {
  from: ForkOrigin;
  /** The original's blueprint, which the operations replay against. */
  blueprintHash: string;
  base: string | null;
  ops: RecordedOp[];
  /** The stage of the visit the fork goes on with. */
  stage: string;
  /** The run's inferences before the fork point, and the visit's. */
  inferences: number;
  visitTurns: number;
  /** The answer a `submit_output` of an earlier visit gave, which the run's result would have shown. */
  answer?: SubmittedOutput;
}

/** The region set as the workflow carries it between stages and across continue-as-new. */
export interface Carried {
  state: RunState;
  /** Hash of the latest snapshot in the blob store; null means the fresh state of the blueprint. */
  snapshot: string | null;
  /** Operations applied since that snapshot. */
  ops: RecordedOp[];
}

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface StageInput {
  runId: string;
  blueprintHash: string;
  blueprint: Blueprint;
  stage: string;
  carried: Carried;
  workdir: string;
  options: RunOptions;
  /** Run-wide inference ordinal of the next inference. */
  inferences: number;
  /** Inferences already made in this visit (a gate re-run or continue-as-new keeps counting). */
  visitTurns: number;
  /** Progress facts of this visit, carried across re-runs and continue-as-new. */
  facts: VisitFacts;
  usage: UsageTotals;
  /** What the visit's sub-agents spent before a continue-as-new. */
  agents?: Spend;
  /** A sub-agent's place in its tree; absent for a run a person started (depth 0, no ceiling). */
  lineage?: Lineage;
  /** A sub-agent's ancestors' permissions, for the agent tools the visit answers itself. */
  ceilings?: PermissionLayer[];
  /** Messages and the pause handed to this visit (docs/reference/operators.md); absent in runs of earlier versions. */
  operators?: OperatorCarry;
  /** The visit's last tool calls, for its details; carried across continue-as-new. */
  recentCalls?: RecentCall[];
  /** The visit's ordinal in the run (1 for the first visit), for its summary. */
  visit?: number;
  /** What the run spent before this visit, when its blueprint caps spending (docs/reference/long-runs.md#spend-caps). */
  spentBefore?: Spend;
  /** The outage the visit waits out and the chain entries it skips, across continue-as-new (docs/reference/long-runs.md#provider-outages). */
  patience?: Patience;
  /** Where its event stream starts, or the tail it carries across continue-as-new (docs/reference/events.md#offsets). */
  events?: LogCarry;
}

/** One tool call as the details list it. */
export interface RecentCall {
  tool: string;
  subject: string;
  ok: boolean;
}

/** What a fan-out stage's visit knows about its one `fan_out` call (docs/reference/sub-agents.md#the-fan-out-stage). */
export interface FanOutFacts {
  /** Asks and refused calls so far without a fan-out. */
  fanOutAttempts?: number;
  /** The fan-out ran (all its workers are done), or the stage gave up asking. */
  fanOutDone?: boolean;
  /** With `on_worker_failure = "fail"`: why the fan-out failed. */
  fanOutFailed?: string;
}

export interface VisitFacts extends OutputFacts, FanOutFacts {
  modifyingCallSucceeded: boolean;
  modifyingCallDenied: boolean;
  /** Inferences in a row without progress. */
  idleInferences: number;
  toolCallsWithoutProgress: number;
  editsPerPath: Record<string, number>;
  /** Workflow time (ms) of the last progress, for `stuck_after_minutes`. */
  lastProgressAt: number;
  /** What `[repetition_detection]` remembers of the visit's calls (`src/runtime/repetition.ts`). */
  repetition?: RepetitionWatch;
  /**
   * The interaction point the stage is at and how many times it was sent back to revise there,
   * while its checkpoints are not all passed (docs/reference/interaction.md#interaction-points).
   */
  checkpoint?: { point: number; round: number };
  /**
   * The visit ran its `on_stage_enter` hook and went on as new before its first inference
   * (docs/reference/stage-hooks.md): its next run does not enter the stage again.
   */
  stageEntered?: boolean;
}

/** How a visit ended; `cancelled` only in the region set a cancelled visit reports to its run. */
export type StageEnd = 'completed' | 'max_iterations' | 'error' | 'stuck' | 'cancelled';

export interface StageOutcome {
  end: StageEnd;
  /** The model's last text in the visit (a blob reference when large). */
  finalContent: Content;
  error?: string;
  /** The code of the error a visit ended with (`end = "error"`), when it had one. */
  errorCode?: string;
  carried: Carried;
  inferences: number;
  visitTurns: number;
  facts: VisitFacts;
  usage: UsageTotals;
  /** What the sub-agents this visit started spent, whole trees (docs/reference/sub-agents.md#usage). */
  agents?: Spend;
  /** Messages the visit did not write (its stage does not accept them, or it ended first), for the next visit. */
  operators?: OperatorCarry;
  /** The offset after its last event: its run's stream goes on from there (docs/reference/events.md#offsets). */
  events?: number;
}

export interface RegionBar {
  name: string;
  kind: string;
  tokens: number;
  budget: number;
  entries: number;
}

/** What a visit waiting out a provider outage shows (docs/reference/long-runs.md#provider-outages). */
export interface ProviderWait {
  provider: string;
  model: string;
  /** The last failure, as the provider's error said it. */
  error: string;
  /** When the outage began (ms, workflow time). */
  since: number;
  /** When it gives up with `provider-unavailable`. */
  giveUpAt: number;
}

/** A chain entry the visit moved past: skipped until `until`, then tried again. */
export interface Detour {
  model: string;
  until: number;
  /** How long it was skipped this time; a failed return doubles it. */
  awayMs: number;
}

/** What a visit knows of its providers' health; carried across continue-as-new. */
export interface Patience {
  /** Since when no entry of the chain answered, and how it has gone since. */
  outage?: {
    since: number;
    model: string;
    error: string;
    tries: number;
    /** Since when `model` (the entry tried last) has been failing. */
    entrySince: number;
  };
  detours: Detour[];
}

export interface Progress {
  runId: string;
  status: LeviathStatus;
  stage: string;
  /** Inferences so far in the run. */
  inferences: number;
  /** Inferences so far in the current stage visit. */
  visitTurns: number;
  regions: RegionBar[];
  window: { max: number; used: number; gap: number };
  gatesForced: RunState['gatesForced'];
  usage: UsageTotals;
  /** Estimated dollars of the usage (docs/reference/operators.md#estimated-cost). */
  cost: CostEstimate;
  /** Workflow id of the stage visit running now. */
  stageWorkflowId?: string;
  /**
   * The run's answer while a visit runs: workflow time (ms) of the live visit's last report, which
   * the turn, regions, calls, usage and cost are as of (docs/reference/operators.md#the-progress-query).
   */
  reportedAt?: number;
  /** The run's answer while a visit runs: the usage and cost of the finished visits alone. */
  finishedVisits?: { usage: UsageTotals; cost: CostEstimate };
  /** What the run waits for, if anything (docs/reference/operators.md#the-progress-query). */
  waiting?: WaitingKind;
  /** The workdir's tool worker the run waits for, while it is away (docs/reference/long-runs.md#tool_worker_patience). */
  toolWorker?: ToolWorkerAbsence;
  /** The provider outage the live visit waits out, when it does (docs/reference/long-runs.md#provider-outages). */
  provider?: ProviderWait;
  /** Calls and questions waiting for a person, oldest first. */
  asks: PendingAsk[];
  paused: boolean;
  /** Messages waiting for a stage that accepts them. */
  heldMessages: number;
  /** The visit's last tool calls, newest last. */
  recentCalls: RecentCall[];
  /** Completion attempts in the current visit, and how many of them a gate blocked. */
  gates: { attempts: number; blocked: number };
  /** Workers of the fan-out (and agents started without waiting) of the visit, while any is not done. */
  workers?: WorkerCounts;
  /** Signals the workflow dropped for their shape (docs/reference/operators.md#rejected-messages). */
  rejected?: RejectedMessages;
}

/** The messages a workflow dropped: how many, and the last few, newest last. */
export interface RejectedMessages {
  count: number;
  recent: string[];
}

/** How a finished run ended, as its result says; a cancelled run has no result, and the client says `cancelled`. */
export type RunStatus = 'completed' | 'failed' | 'cancelled';

export interface RunResult {
  runId: string;
  status: RunStatus;
  /** The run's answer; for a sub-agent whose answer is large, its first characters (the whole is `outputRef`). */
  output: string;
  /** A sub-agent's answer when it is too large to travel inline: its blob in the store. */
  outputRef?: BlobRef;
  /** A sub-agent whose start stage owes an answer (`require_output`) ended without one. */
  outputMissing?: boolean;
  /** The label of the answer handed back with `submit_output`; absent when the run submitted none. */
  outputFormat?: string;
  /** The files that answer names, relative to the run's workdir (docs/reference/stages.md#artifacts); absent when none. */
  artifacts?: string[];
  error?: string;
  /** Messages people sent that the run ended holding: no later stage accepted messages. */
  undeliveredMessages?: number;
  regions: RegionBar[];
  gatesForced: RunState['gatesForced'];
  /** The run's model calls and tokens, its sub-agents' included; `agents` is their part (docs/reference/sub-agents.md#usage). */
  usage: UsageTotals & { perStage: Record<string, UsageTotals>; agents?: UsageTotals };
  /** The estimated cost of `usage`; absent in results of earlier versions. */
  cost?: CostEstimate;
  stages: string[];
  /** What the engine recorded along the way: window pressure, failed folds, failed custom renders, ... */
  diagnostics: RunState['diagnostics'];
}

/**
 * The memo fields its readers rely on (docs/reference/operators.md#memo):
 * the blueprint and task from the start, the rest once the run has ended.
 * A memo of an earlier version may lack any of them.
 */
export type RunMemo = Partial<
  Pick<RunResult, 'stages' | 'usage' | 'cost' | 'gatesForced' | 'undeliveredMessages'> & {
    blueprint: string;
    task: string;
    /** The title the run was started with (docs/reference/cli.md#run-titles). */
    title: string;
    inferences: number;
    /** Set on a fork's run when `lev fork` starts it (docs/reference/cluster-runs.md#fork). */
    forkedFrom: ForkOrigin;
  }
>;

/**
 * A sub-agent's result: only what its parent reads, because it travels
 * through the parent's history; the region bars, gates and diagnostics stay
 * in its memo and `progress` query (docs/reference/sub-agents.md#what-a-worker-hands-back).
 */
export type ChildRunResult = Pick<
  RunResult,
  | 'status'
  | 'output'
  | 'outputRef'
  | 'outputMissing'
  | 'outputFormat'
  | 'artifacts'
  | 'error'
  | 'cost'
  | 'stages'
  | 'undeliveredMessages'
> & { usage: UsageTotals };

/** A result as every reader sees it: a sub-agent's slim one gets the fields it leaves out, empty. */
export function fullResult(runId: string, result: Partial<RunResult>): RunResult {
  return {
    runId,
    status: 'failed',
    output: '',
    regions: [],
    gatesForced: [],
    stages: [],
    diagnostics: [],
    ...result,
    usage: { ...emptyUsage(), perStage: {}, ...result.usage },
  };
}

export function emptyUsage(): UsageTotals {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

export function addUsage(total: UsageTotals, add: UsageTotals): UsageTotals {
  return {
    calls: total.calls + add.calls,
    promptTokens: total.promptTokens + add.promptTokens,
    completionTokens: total.completionTokens + add.completionTokens,
    cacheReadTokens: total.cacheReadTokens + add.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + add.cacheWriteTokens,
  };
}

export function regionBars(state: RunState): RegionBar[] {
  return state.regions
    .filter((r) => !r.hidden)
    .map((r) => ({
      name: r.name,
      kind: r.kind,
      tokens: r.entries.reduce((a, e) => a + e.tokens, 0),
      budget: r.budget,
      entries: r.entries.length,
    }));
}

/** The progress view of a run or a stage visit: its counters, plus what the region set shows. */
export function progressOf(
  state: RunState,
  counters: Omit<Progress, 'regions' | 'window' | 'gatesForced' | 'gates'>,
): Progress {
  const regions = regionBars(state);
  const used = regions.reduce((a, r) => a + r.tokens, 0);
  return {
    ...counters,
    regions,
    window: { max: state.window.max, used, gap: state.window.gap },
    gatesForced: state.gatesForced,
    // A visit that is still running left every earlier completion attempt by a block.
    gates: { attempts: state.attempts, blocked: state.attempts },
  };
}

/** A layer of the ceiling a run's tools stay under: an ancestor's blueprint and the stage that started the line. */
export interface CeilingLayer {
  blueprintHash: string;
  stage: string;
}

/**
 * Where a run sits in its tree of agents: every ancestor's blueprint and
 * spawning stage, oldest first. A run a person started has none (depth 0);
 * the first layer's blueprint is the tree's first, which holds the catalog.
 * Kept this small because it travels in every child's input.
 */
export interface Lineage {
  /** The deepest a descendant may be (the first run's `[agent] max_child_depth`). */
  maxDepth: number;
  /** Every ancestor's blueprint and spawning stage: a child's permissions, reads and commands never exceed theirs. */
  ceiling: CeilingLayer[];
}

/**
 * One `[[transforms]]` mapping as a child's start carries it (docs/reference/sub-agents.md#context-transforms):
 * the parent region's entries, oldest first (a stored one by reference), and the child's region they go to.
 */
export interface HandoffPart {
  region: string;
  parts: Content[];
  transform: ContentTransform;
  /** `extract` only. */
  fields?: string[];
}

/** What a child run receives besides its task (`RunInput.child`). */
export interface ChildRun {
  parentRunId: string;
  /** The catalog key of the blueprint it runs; absent: its parent's own blueprint (a `worker_stage`). */
  agent?: string;
  /** Start at this stage instead of the blueprint's entry stage. */
  stage?: string;
  lineage: Lineage;
  /** `spawn_agent {seed_context}`: written into the child's first pinned region after its seeds. */
  seedContext?: string;
  /** `spawn_agent {output_format, output_instructions}`: the answer the child is asked for. */
  output?: OutputSpec;
  /** `[[transforms]]`: the parent's context mapped onto the child's regions, written after its seeds. */
  handoff?: HandoffPart[];
}

/** What the parent's progress shows of a fan-out in flight. */
export interface WorkerCounts {
  queued: number;
  running: number;
  done: number;
  failed: number;
}

export interface Spend {
  usage: UsageTotals;
  cost: CostEstimate;
}

/** Estimated dollars of some usage, and which models had prices. */
export interface CostEstimate {
  usd: number | null;
  priced: string[];
  unpriced: string[];
}

/** The values of the `LeviathStatus` search attribute (docs/reference/operators.md#statuses). */
export const LEVIATH_STATUSES = ['running', 'waiting', 'paused', 'completed', 'failed', 'cancelled', 'stuck'] as const;

export type LeviathStatus = (typeof LEVIATH_STATUSES)[number];

/** What `Progress.waiting` says the run waits for; `checkpoint`: an interaction point. */
export type WaitingKind =
  | 'message'
  | 'approval'
  | 'answer'
  | 'checkpoint'
  | 'resume'
  | 'tool-worker-missing'
  | 'provider-unavailable';

/** A tool call or seed no tool worker has taken, while none polls the run's tool queue. */
export interface ToolWorkerAbsence {
  taskQueue: string;
  /** The workdir as the run names it. */
  workdir: string;
  /** Workflow time (ms) the call that first waited was scheduled. */
  since: number;
  /** Workflow time (ms) the run fails `tool-worker-missing` unless a tool worker takes the call. */
  failsAt: number;
}

/**
 * What an answer must be (docs/reference/interaction.md#answering): free text, one of the
 * options, yes or no, feedback on a document (or an acknowledgement), or the edited document.
 */
export type AnswerForm = 'text' | 'choice' | 'confirm' | 'review' | 'edit';

/** A call or question that waits for a person. */
export interface PendingAsk {
  kind: 'approval' | 'answer';
  call: string;
  tool: string;
  /** approval: the tool and its main argument; answer: the question (a review's title). */
  subject: string;
  /** Workflow time in ms. */
  since: number;
  deadline: number;
  /** What the answer must be; absent: free text. */
  form?: AnswerForm;
  /** The labels a `choice` answer picks from, in order. */
  options?: string[];
  /** The document a `review` or `edit` question (or a checkpoint) is about: inline when short, else a blob reference. */
  document?: Content;
  /** The interaction point that asks, on a checkpoint of an `interactive_points` stage. */
  point?: string;
  /** A free-text question that may be passed without text (`required = false`). */
  optional?: boolean;
}

/** What passes between visits and across continue-as-new. */
export interface OperatorCarry {
  inbox?: string[];
  held?: string[];
  paused?: boolean;
}

/** A valid `submit_output` call: the answer (a blob reference when large), its label and the files it names. */
export interface SubmittedOutput {
  format: string;
  content: Content;
  stage: string;
  /** Workdir-relative paths of the files the answer names (docs/reference/stages.md#artifacts); absent when none. */
  artifacts?: string[];
}

/** The part of a visit's facts these decisions read and update. */
export interface OutputFacts {
  output?: SubmittedOutput;
  outputReminders?: number;
  /** The visit called a tool: the empty-response nudge is over (`afterPlainReply`). */
  calledTools?: boolean;
  /** Empty-response nudges sent in the visit. */
  nudges?: number;
}

/**
 * Everything a run hands its next run: the blueprint it resolved, the walk so
 * far (the stage it is in, the stages visited, the counters and usage), the
 * region set, what waits for the next visit (messages nobody read, the
 * pause), and the live visit's continuation when it handed over mid-visit.
 */
export interface RunCarry {
  blueprint: Blueprint;
  blueprintHash: string;
  ceilings?: PermissionLayer[];
  carried: Carried;
  stagesVisited: string[];
  seedWarnings: string[];
  /** Visits started so far: the next visit's ordinal is one more (its workflow id names it). */
  visits: number;
  inferences: number;
  visitTurns: number;
  facts: VisitFacts;
  usage: UsageTotals;
  perStage: Record<string, UsageTotals>;
  agents: Spend;
  answer?: SubmittedOutput;
  operators: Required<OperatorCarry>;
  stuck: boolean;
  /** How many times the run continued as new before this run, this one included. */
  continued: number;
  /** The visit that handed over: the next run starts it again from here, under the same workflow id. */
  visit?: StageInput;
  /** What the run told its webhooks it waits for, so a question still open is not told again (`NOTIFY_TOLD_CARRIED`). */
  told?: string[];
  /** The tail of the run's event stream and its next offset (docs/reference/events.md#offsets). */
  events?: LogCarry;
}

/** What a stage visit hands its run when the run asked it to hand over. */
export interface HandedOver {
  handedOver: StageInput;
}

/** What the watch remembers between turns; carried in the visit's facts. */
export interface RepetitionWatch {
  /** The last call, as `callKey` writes it. */
  last?: string;
  /** How many times in a row the last call was made, since the last nudge about it. */
  repeats: number;
  /** Calls in a row that modified nothing, since the last nudge about them. */
  readonly: number;
}
