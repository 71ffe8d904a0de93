/**
 * The tool activity's work: run one built-in tool call in the run's
 * working directory and return its output counted (large output as a blob
 * reference), plus the facts the workflow tracks for gates and `stuck`.
 */
import { toContent } from '../blobs/index.js';
import type { Content, ToolCall } from '../context/index.js';
import { encodingFor, lookupModel } from '../providers/models.js';
import { countTokens } from '../tokens/index.js';
import { dispatchTool } from '../tools/dispatch.js';
import { modelOf } from './inference.js';
import type { RunStore } from './run-store.js';
import { mergedPermissions, readPolicy } from './tool-context.js';

export interface ToolInput {
  runId: string;
  blueprintHash: string;
  stage: string;
  call: ToolCall;
  workdir: string;
  unattended: boolean;
}

export interface ToolResultOut {
  content: Content;
  tokens: number;
  isError: boolean;
  /** The first line of an error result, for hints and stuck reports. */
  errorLine?: string;
  modifiedPaths: string[];
  denied: boolean;
}

export async function runToolCall(store: RunStore, input: ToolInput, attempt: number, signal?: AbortSignal): Promise<ToolResultOut> {
  const bp = await store.blueprint(input.blueprintHash);
  const outcome = await dispatchTool(input.call.name, input.call.arguments, {
    workdir: input.workdir,
    readPolicy: readPolicy(bp, input.workdir, store.config.env),
    permissions: mergedPermissions(bp, input.stage),
    safeCommands: bp.safeCommands.shell,
    unattended: input.unattended,
    attempt,
    ...(signal ? { signal } : {}),
  });
  const model = modelOf(bp, input.stage);
  const text = outcome.content;
  return {
    content: await toContent(store.blobs, text),
    tokens: countTokens(text, encodingFor(model, lookupModel(bp.models, model))),
    isError: outcome.isError,
    ...(outcome.isError ? { errorLine: text.split('\n')[0]?.slice(0, 300) ?? '' } : {}),
    modifiedPaths: outcome.modifiedPaths ?? [],
    denied: outcome.denied === true,
  };
}
