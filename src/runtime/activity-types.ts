/**
 * What the activities take and answer, as plain data: the workflows import
 * these types, the activities' work in `node/` implements them. Pure.
 */
import type { Content, RunState, ToolCall } from '../context/index.js';
import type { InferencePurpose, InvalidToolCall, Usage } from '../providers/provider.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { PermissionLayer } from '../tools/permissions.js';
import type { RecordedOp, SeedEntryText } from './ops.js';
import type { CeilingLayer, RunInput } from './types.js';

export interface InferInput {
  runId: string;
  blueprintHash: string;
  base: string | null;
  ops: RecordedOp[];
  stage: string;
  /** Run-wide inference ordinal (stable across retries). */
  turn: number;
  /** Inferences earlier in this stage visit. */
  stageTurn: number;
  purpose: Exclude<InferencePurpose, 'summary'>;
  /** Edge-choice requests: the question appended as the last user message. */
  question?: string;
  /** Edge names offered to the model (edge-choice). */
  options?: string[];
  /** Also store the rebuilt region set as a snapshot and answer its hash (`InferOutput.snapshot`). */
  snapshot?: boolean;
  /** Blob hash of the visit's MCP tool catalog, when it discovered one (docs/reference/mcp.md#discovery). */
  catalog?: string;
  /** Blob hash of the scripts the run wrote that the turn offers (`FoundTools.offered`); absent: none. */
  written?: string;
  /** Chain entries to skip for now, their provider being down (docs/reference/long-runs.md#provider-outages). */
  avoid?: string[];
  /**
   * Set by a visit that waits out provider outages itself: after this many attempts a
   * retryable provider failure comes back to it instead of being retried by the activity.
   */
  handBackAfter?: number;
  /**
   * Set on the turns of a visit that asked `STABLE_TOOL_LIST`: the request offers the run's tools
   * and states the stage's grants (docs/reference/rendering.md#the-tool-list).
   */
  stableTools?: boolean;
}

export interface CountedToolCall extends ToolCall {
  /** Tokens of each text argument the engine stores (`content`, `item`, `note`). */
  argTokens: Record<string, number>;
}

export interface InferOutput {
  content: Content;
  /** Text plus tool calls, as charged to the assistant entry. */
  tokens: number;
  toolCalls: CountedToolCall[];
  invalidToolCalls: InvalidToolCall[];
  usage: Usage;
  /** The request's prompt tokens as the provider reported them, else as counted with its MCP tools' specs (`requestPromptTokens`). */
  reportedPromptTokens?: number;
  stopReason: string;
  /** Custom regions whose `render` failed and fell back to the default rendering. */
  renderFailures: string[];
  /** Custom regions whose `render` returned more than their budget and was cut; absent when none was. */
  renderCuts?: string[];
  /** The snapshot of the region set this inference rendered, when the input asked for one. */
  snapshot?: string;
  /** Texts the workflow will count while it stores this reply, counted ahead (`src/runtime/reply-counts.ts`). */
  counted?: [string, number][];
  /**
   * When the inference ended (ms since the epoch, the worker's clock). The
   * visit throttles its progress reports on it rather than on the workflow's
   * clock, so the decision is read from history alone.
   */
  endedAt?: number;
  /** The chain entry (`provider:model`) that answered. */
  model?: string;
}

export interface ToolInput {
  runId: string;
  blueprintHash: string;
  stage: string;
  call: ToolCall;
  workdir: string;
  unattended: boolean;
  /** A sub-agent's ancestors, whose permissions its calls stay under. */
  ceiling?: CeilingLayer[];
  /** A person approved this call under its `ask` permission (docs/reference/operators.md#approve-and-deny). */
  approved?: boolean;
  /** Blob hash of the visit's MCP tool catalog, when it discovered one (docs/reference/mcp.md#discovery). */
  catalog?: string;
  /** Blob hash of the scripts the run wrote that the turn offers (`FoundTools.offered`); absent: none. */
  written?: string;
  /** Attempts of this call made before it was scheduled again after waiting for its tool worker (docs/reference/long-runs.md#tool_worker_patience). */
  attemptsBefore?: number;
}

/** What a turn's scan of the workdir's `tools/` is asked (docs/reference/script-tools.md#tools-a-run-writes). */
export interface ScanInput {
  runId: string;
  blueprintHash: string;
  stage: string;
  workdir: string;
}

/**
 * What the scan found that the stage is offered: the blob hash of their
 * declarations and scripts (a JSON array of `ScriptToolDef`), the same hash
 * while they stay the same; absent when there is none.
 */
export interface FoundTools {
  offered?: string;
}

/**
 * A file's text for `[context.file_tracking]`, keyed by its workdir-relative path
 * (docs/reference/routing.md#path-hints).
 */
export interface TrackedFile {
  key: string;
  content: Content;
  tokens: number;
}

export interface ToolResultOut {
  content: Content;
  tokens: number;
  isError: boolean;
  modifiedPaths: string[];
  denied: boolean;
  tracked?: TrackedFile;
  /** A `submit_output` call that passed its checks: the answer, its format label and the files it names. */
  output?: { format: string; content: Content; artifacts?: string[] };
}

/** What a run gives its seeds. */
export interface SeedRunInputs {
  task?: string;
  caller: Record<string, string>;
  workdir: string;
  noSeedCommands: boolean;
}

export interface SeedRequest extends SeedRunInputs {
  blueprintHash: string;
  /** `each_stage` refresh: only these regions. Absent: every seeded region (run start). */
  regions?: string[];
  /** The stage whose model's encoding counts the text. */
  stage: string;
  /** A sub-agent's ancestors, whose permissions, reads and commands its seeds stay under. */
  ceiling?: CeilingLayer[];
}

/**
 * The seed request of a run: its task, caller values, workdir and ancestors,
 * for every seeded region or, on a refresh, only `regions`. The run's
 * `resolveSeeds` activity and a fan-out worker's start build it alike.
 */
export function seedRequest(blueprintHash: string, input: RunInput, stage: string, regions?: string[]): SeedRequest {
  const ceiling = input.child?.lineage.ceiling ?? [];
  return {
    blueprintHash,
    ...(input.task !== undefined ? { task: input.task } : {}),
    caller: input.caller,
    workdir: input.workdir,
    noSeedCommands: input.options.noSeedCommands,
    stage,
    ...(regions ? { regions } : {}),
    ...(ceiling.length > 0 ? { ceiling } : {}),
  };
}

export interface SeededRegion {
  region: string;
  texts: SeedEntryText[];
  warnings: string[];
}

/** What a fork's run asks of its `forkStart` activity (docs/reference/cluster-runs.md#fork). */
export interface ForkStartRequest {
  /** The fork's run id: the blobs it keeps alive are recorded as its own. */
  runId: string;
  /** The original's blueprint, the snapshot and the operations since. */
  blueprintHash: string;
  base: string | null;
  ops: RecordedOp[];
  /** `lev fork --model`: the fork's blueprint uses this model for every stage. */
  model?: string;
  /** A forked sub-agent's ancestors, whose permissions the fork stays under. */
  ceiling?: CeilingLayer[];
}

/** The fork's blueprint, and its region set rebuilt and stored as its first snapshot. */
export interface ForkStart {
  blueprint: Blueprint;
  hash: string;
  state: RunState;
  snapshot: string;
  ceilings?: PermissionLayer[];
}
