/**
 * The region engine's data model (docs/reference/regions.md). Everything here is plain
 * JSON-serialisable data: a workflow holds it, continue-as-new carries it,
 * and the inference activity rebuilds it from a snapshot plus operations.
 */
import type { RegionDef, RegionKind } from './frozen-blueprint.js';

/** Large text lives in the blob store; the entry keeps a reference. */
export interface BlobRef {
  hash: string;
  bytes: number;
  /** First 200 characters, so listings and pointers need no blob read. */
  preview: string;
}

/** Inline text, or a reference the inference activity resolves. */
export type Content = string | BlobRef;

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments (the provider adapters parse and validate them). */
  arguments: Record<string, unknown>;
  /**
   * Arguments whose long text the inference activity moved to the blob store: their values
   * are `BlobRef`s, expanded again before a tool or a provider sees the call
   * (docs/reference/regions.md#stored-arguments).
   */
  blobArgs?: string[];
}

export type EntryKind = 'text' | 'user' | 'assistant' | 'tool_result';

export interface ChecklistItem {
  id: number;
  done: boolean;
  note?: string;
  noteTokens: number;
}

export interface Entry {
  /** Run-unique, increasing. */
  id: number;
  content: Content;
  /** Exact count, fixed at creation; the engine never tokenizes. */
  tokens: number;
  kind: EntryKind;
  key?: string;
  /** Assistant entries only. */
  toolCalls?: ToolCall[];
  /** Tool results only. */
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  /** Fold output only. */
  summary?: boolean;
  foldedEntries?: number;
  foldedTokens?: number;
  checklist?: ChecklistItem;
  /** Stage name, on a stage-instructions entry only. */
  stagePrompt?: string;
  seeded?: boolean;
  /** Text the runtime composed (gate nudges, notes), not the model or a tool. */
  runtime?: boolean;
  /** Logical clock values. */
  created: number;
  touched: number;
  /** Workflow time in seconds; informational. */
  at: number;
}

/** Text born outside the engine, already counted. */
export interface CountedText {
  content: Content;
  tokens: number;
}

export interface RegionState {
  name: string;
  kind: RegionKind;
  /** The definition in force for the current stage, defaults applied. */
  def: RegionDef;
  /** Resolved budget M for the current stage's window. */
  budget: number;
  /** Compacting threshold θ, compacting regions only. */
  threshold?: number;
  entries: Entry[];
  pending: Entry[];
  nextItemId: number;
  updates: number;
  foldFailures: number;
  /** True while the current stage does not carry the region (docs/reference/stages.md#visibility). */
  hidden?: boolean;
  /**
   * A `writesInPlace` region's layout (docs/reference/rendering.md#writes-in-place): entries up to
   * `through` render in its block, later ones at the point of their write. `seen` and `count` are
   * the run's last entry id and the region's entry count at the last maintenance point, which
   * tells the next one whether entries left the region since.
   */
  layout?: { through: number; seen: number; count: number };
  /** Marked by an edge `compact` transform for `fold_all` at the next maintenance point. */
  markedForFold?: boolean;
  /** Instructions that replace the built-in summariser prompt for the marked fold. */
  markedCompactPrompt?: string;
}

/**
 * Neutral, provider-independent prompt (docs/reference/rendering.md#system-order and
 * docs/reference/rendering.md#messages). Providers adapt it.
 */
export interface PromptSystemBlock {
  region: string;
  text: Content[];
  /** Anthropic cache breakpoint requested here (docs/reference/rendering.md#cache-markers). */
  cache?: boolean;
}

/**
 * `blob`, when present, holds the message's full text: `content` is then only
 * the blob's preview, and the inference activity replaces it with the text.
 * `parts` does the same for a message assembled from several pieces (the
 * tail, docs/reference/rendering.md#tail): the full text is the parts in order.
 */
export type PromptMessage =
  | {
      role: 'user';
      content: string;
      blob?: BlobRef;
      parts?: Content[];
      /** The tail: rebuilt for every request from the regions placed there, never stored. */
      tail?: true;
      cache?: boolean;
    }
  | { role: 'assistant'; content: string; blob?: BlobRef; toolCalls?: ToolCall[]; cache?: boolean }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      content: string;
      blob?: BlobRef;
      isError?: boolean;
      cache?: boolean;
    };
