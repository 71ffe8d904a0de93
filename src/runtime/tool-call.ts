/**
 * The tool activity's work: run one built-in tool call in the run's
 * working directory and return its output counted (large output as a blob
 * reference), plus the facts the workflow tracks for gates and `stuck`.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { toContent } from '../blobs/index.js';
import type { Blueprint } from '../blueprint/types.js';
import type { Content, ToolCall } from '../context/index.js';
import { type Encoding, encodingFor, lookupModel } from '../providers/models.js';
import { countTokens, cutMarker, cutToTokens } from '../tokens/index.js';
import { dispatchTool } from '../tools/dispatch.js';
import { isGranted, notGrantedResult, stageTools } from '../tools/grants.js';
import { canonicalTool } from '../tools/names.js';
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
}

/** The text of a file a successful read or write touched, when the blueprint tracks files. */
async function trackedFile(
  store: RunStore,
  bp: Blueprint,
  input: ToolInput,
  encoding: Encoding,
): Promise<TrackedFile | undefined> {
  const tracking = bp.fileTracking;
  const path = input.call.arguments.path;
  if (!tracking || typeof path !== 'string') return undefined;
  const tool = canonicalTool(input.call.name);
  const tracked =
    (tracking.trackReads && tool === 'read_file') ||
    (tracking.trackWrites && (tool === 'write_file' || tool === 'edit_file'));
  if (!tracked) return undefined;
  // The tool has just read or written this path, so it passed confinement.
  const absolute = resolve(input.workdir, path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch {
    return undefined;
  }
  let tokens = countTokens(text, encoding);
  if (tracking.maxFileTokens !== undefined && tokens > tracking.maxFileTokens) {
    const cut = cutToTokens(
      text,
      tracking.maxFileTokens,
      encoding,
      cutMarker('the file is longer than max_file_tokens'),
    );
    text = cut.text;
    tokens = cut.tokens;
  }
  const rel = relative(input.workdir, absolute);
  const key = rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
  return { key, content: await toContent(store.blobs, text), tokens };
}

export async function runToolCall(
  store: RunStore,
  input: ToolInput,
  attempt: number,
  signal?: AbortSignal,
): Promise<ToolResultOut> {
  const bp = await store.blueprint(input.blueprintHash);
  const model = modelOf(bp, input.stage);
  const encoding = encodingFor(model, lookupModel(bp.models, model));
  // The workflow already refuses such calls; checked again here so no caller can reach an ungranted tool.
  if (!isGranted(bp, input.stage, input.call.name)) {
    const text = notGrantedResult(bp, input.stage, input.call.name);
    return { content: text, tokens: countTokens(text, encoding), isError: true, modifiedPaths: [], denied: false };
  }
  const outcome = await dispatchTool(input.call.name, input.call.arguments, {
    workdir: input.workdir,
    readPolicy: readPolicy(bp, input.workdir, store.config.env),
    permissions: mergedPermissions(bp, input.stage),
    safeCommands: bp.safeCommands.shell,
    unattended: input.unattended,
    attempt,
    granted: stageTools(bp, input.stage),
    ...(signal ? { signal } : {}),
  });
  const text = outcome.content;
  const tracked = outcome.isError ? undefined : await trackedFile(store, bp, input, encoding);
  return {
    content: await toContent(store.blobs, text),
    tokens: countTokens(text, encoding),
    isError: outcome.isError,
    modifiedPaths: outcome.modifiedPaths ?? [],
    denied: outcome.denied === true,
    ...(tracked ? { tracked } : {}),
  };
}
