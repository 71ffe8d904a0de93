/**
 * The provider contract: one neutral request shape in, one neutral response
 * out. Adapters translate to each wire format; nothing above this layer
 * knows which vendor answered.
 */
import type { PromptMessage, ToolCall } from '../shapes/content.js';
import type { ModelParameters } from '../shapes/model-parameters.js';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A system block whose blob contents the caller has already resolved. */
export interface ResolvedSystemBlock {
  text: string;
  /** Anthropic cache breakpoint after this block (docs/reference/rendering.md#cache-markers). */
  cache?: boolean;
}

/** Messages always carry resolved text, so the neutral form is reused as is. */
export type ResolvedMessage = PromptMessage;

export type InferencePurpose = 'turn' | 'edge-choice' | 'summary';

export interface InferenceMeta {
  runId: string;
  stage: string;
  /** Run-wide inference ordinal starting at 0 (every purpose counts), stable across retries of the same call. */
  turn: number;
  purpose: InferencePurpose;
  /** 1 for the first try; Temporal's attempt number after that. */
  attempt: number;
  /**
   * 0-based count of earlier `turn`-purpose inferences in the current visit
   * of `stage`. The scripted provider indexes per-stage turn lists by it.
   */
  stageTurn?: number;
  /** Edge names offered, for purpose `edge-choice` (the scripted provider picks one). */
  options?: string[];
}

export interface InferenceRequest {
  /** `provider:model`, e.g. `openai:gpt-4o`, `anthropic:claude-sonnet-4-5`, `scripted:demo`. */
  model: string;
  /** In the order the engine rendered them. */
  system: ResolvedSystemBlock[];
  /** Neutral form: user / assistant (+ toolCalls) / tool (toolCallId). */
  messages: ResolvedMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  temperature?: number;
  /** The stage's model parameters (docs/providers.md#model-parameters); `max_tokens` is already in `maxTokens`. */
  parameters?: ModelParameters;
  meta: InferenceMeta;
}

/** A tool call whose arguments were not a JSON object; the runtime answers it with an error result. */
export interface InvalidToolCall {
  id: string;
  name: string;
  raw: string;
  error: string;
}

export interface Usage {
  /** Every prompt token the provider counted, cached parts included. */
  promptTokens: number;
  completionTokens: number;
  /** Part of `promptTokens` served from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Part of `promptTokens` written to the provider's prompt cache. */
  cacheWriteTokens: number;
}

export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'other';

export interface InferenceResponse {
  text: string;
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
  stopReason: StopReason;
  usage: Usage;
  /**
   * Total prompt tokens as counted by the provider; absent when it reported none
   * (docs/reference/regions.md#calibration-gap).
   */
  reportedPromptTokens?: number;
}

export interface InferOptions {
  signal?: AbortSignal;
  /**
   * Called with the reply's text so far each time more of it arrived, by a provider that streams
   * (docs/reference/events.md#the-token-channel); the whole reply still comes back as the answer.
   */
  onText?: (textSoFar: string) => void;
}

export interface ModelProvider {
  readonly name: string;
  /** The server it calls, without credentials; absent for the in-process scripted model. */
  readonly endpoint?: string;
  infer(req: InferenceRequest, opts?: InferOptions): Promise<InferenceResponse>;
}
