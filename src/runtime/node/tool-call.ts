/**
 * The tool activity's work: run one built-in tool call in the run's
 * working directory and return its output counted (large output as a blob
 * reference), plus the facts the workflow tracks for gates and `stuck`.
 */
import { toContent } from '../../blobs/index.js';
import { expandVars } from '../../blueprint/mcp-servers.js';
import { loadUserConfig } from '../../blueprint/user-config.js';
import type { ToolCatalog } from '../../mcp/tool-names.js';
import { SUBMIT_OUTPUT } from '../../outputs/spec.js';
import { submitOutput } from '../../outputs/submit.js';
import { encodingFor, lookupModel } from '../../providers/builtin-models.js';
import type { Blueprint, ScriptToolDef } from '../../shapes/frozen-blueprint.js';
import type { Encoding } from '../../shapes/model-info.js';
import { countTokens, cutMarker, cutToTokens } from '../../tokens/index.js';
import { checkArtifacts } from '../../tools/artifacts.js';
import { canonicalTool } from '../../tools/builtin-names.js';
import { dispatchTool, type ToolContext, type ToolOutcome } from '../../tools/dispatch.js';
import { runFactsFor } from '../../tools/env-info.js';
import { isGranted, notGrantedResult, stageTools } from '../../tools/grants.js';
import { mergedPermissions } from '../../tools/permissions.js';
import { BUILTIN_TOOL_TABLE } from '../../tools/registry.js';
import type { ToolInput, ToolResultOut, TrackedFile } from '../activity-types.js';
import { mcpGrants } from '../mcp-grants.js';
import { expandArguments } from './arguments.js';
import {
  callMcpTool,
  configuredServers,
  launchPlace,
  loadCatalog,
  missingMcpTool,
  stageMcpTools,
} from './mcp-tools.js';
import { chooseModel } from './model-choice.js';
import type { RunStore } from './run-store.js';
import { ancestorsOf, readPolicyUnder, sandboxUnder, scriptContext, toolCeilings } from './tool-context.js';
import { callsWritten, writtenCall } from './written-tools.js';

export type { ToolInput, ToolResultOut, TrackedFile };

/**
 * The text a successful read or write handled, when the blueprint tracks
 * files: exactly what the tool read or wrote, under the path it opened, never
 * a second read of the path as the model spelled it.
 */
async function trackedFile(
  store: RunStore,
  bp: Blueprint,
  tool: string,
  file: ToolOutcome['file'],
  encoding: Encoding,
): Promise<TrackedFile | undefined> {
  const tracking = bp.fileTracking;
  if (!tracking || !file) return undefined;
  const tracked =
    (tracking.trackReads && tool === 'read_file') ||
    (tracking.trackWrites && (tool === 'write_file' || tool === 'edit_file'));
  if (!tracked) return undefined;
  let text = file.text;
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
  return { key: file.key, content: await toContent(store.blobs, text), tokens };
}

/**
 * A granted MCP tool goes to its server, anything else (script tools included,
 * docs/reference/script-tools.md) to the dispatcher (docs/reference/mcp.md).
 */
async function runCall(
  store: RunStore,
  bp: Blueprint,
  input: ToolInput,
  ctx: ToolContext,
  catalog: ToolCatalog | undefined,
  mcp: readonly string[],
): Promise<ToolOutcome> {
  const name = input.call.name;
  const entry = mcp.includes(name) ? catalog?.tools.find((t) => t.advertised === name) : undefined;
  if (entry) {
    const env = store.config.env;
    return callMcpTool(entry, input.call.arguments, {
      ...ctx,
      place: launchPlace(bp, input.workdir, env),
      servers: configuredServers(env),
    });
  }
  if (mcpGrants(bp, input.stage).tools.includes(name) && !BUILTIN_TOOL_TABLE.has(canonicalTool(name)))
    return missingMcpTool(name, catalog, bp, input.stage);
  return dispatchTool(name, input.call.arguments, ctx);
}

export async function runToolCall(
  store: RunStore,
  received: ToolInput,
  attempt: number,
  signal?: AbortSignal,
): Promise<ToolResultOut> {
  const input = { ...received, call: await expandArguments(store.blobs, received.call) };
  const bp = await store.blueprint(input.blueprintHash);
  // Counted like the replies: with the encoding of the model that will read the result.
  const model = chooseModel(bp, input.stage, [], store.config.env);
  const encoding = encodingFor(model, lookupModel(bp.models, model));
  const catalog = input.catalog ? await loadCatalog(store, input.catalog) : undefined;
  const mcp = catalog ? stageMcpTools(bp, input.stage, catalog) : [];
  // The workflow already refuses such calls; checked again here so no caller can reach an ungranted tool.
  if (!isGranted(bp, input.stage, input.call.name, mcp)) {
    const text = notGrantedResult(bp, input.stage, input.call.name, mcp);
    return { content: text, tokens: countTokens(text, encoding), isError: true, modifiedPaths: [], denied: false };
  }
  if (canonicalTool(input.call.name) === SUBMIT_OUTPUT) {
    const args = input.call.arguments;
    const submission = submitOutput(bp, input.stage, args, checkArtifacts(args.artifacts, input.workdir));
    return {
      content: submission.reply,
      tokens: countTokens(submission.reply, encoding),
      isError: !submission.ok,
      modifiedPaths: [],
      denied: false,
      ...(submission.ok
        ? {
            output: {
              format: submission.format,
              content: await toContent(store.blobs, submission.text),
              ...(submission.artifacts.length > 0 ? { artifacts: submission.artifacts } : {}),
            },
          }
        : {}),
    };
  }
  // A script the run wrote runs only as the turn offered it (docs/reference/script-tools.md#tools-a-run-writes).
  const written = callsWritten(bp, input) ? await writtenCall(store, input) : undefined;
  const ancestors = await ancestorsOf(store, input.ceiling);
  const reads = readPolicyUnder(bp, input.workdir, store.config.env, ancestors);
  const ctx: ToolContext = {
    workdir: input.workdir,
    readPolicy: reads,
    sandbox: sandboxUnder(bp, reads, store.config.env, ancestors),
    ...(ancestors.length > 0 ? { ceilings: toolCeilings(ancestors) } : {}),
    permissions: mergedPermissions(bp, input.stage),
    safeCommands: bp.safeCommands.shell,
    unattended: input.unattended,
    ...(input.approved ? { approved: true } : {}),
    attempt,
    granted: [...stageTools(bp, input.stage), ...mcp],
    ...webContext(store.config.env),
    ...scripts(bp, store.config.env, written && 'run' in written ? [written.run] : []),
    run: runFactsFor(bp, input.stage, {
      model,
      tools: stageTools(bp, input.stage),
      workdir: input.workdir,
      unattended: input.unattended,
      runId: input.runId,
    }),
    ...(signal ? { signal } : {}),
  };
  const outcome =
    written && 'refused' in written ? written.refused : await runCall(store, bp, input, ctx, catalog, mcp);
  const text = outcome.content;
  const tracked = outcome.isError
    ? undefined
    : await trackedFile(store, bp, canonicalTool(input.call.name), outcome.file, encoding);
  return {
    content: await toContent(store.blobs, text),
    tokens: countTokens(text, encoding),
    isError: outcome.isError,
    modifiedPaths: outcome.modifiedPaths ?? [],
    denied: outcome.denied === true,
    ...(tracked ? { tracked } : {}),
  };
}

function scripts(
  bp: Blueprint,
  env: NodeJS.ProcessEnv,
  written: readonly ScriptToolDef[],
): Pick<ToolContext, 'scripts'> {
  const context = scriptContext(bp, env, undefined, written);
  return context ? { scripts: context } : {};
}

/** `[web]` and `[web.search]` of the user config, `${VAR}` in the search API key expanded. */
function webContext(env: NodeJS.ProcessEnv): Pick<ToolContext, 'web' | 'search'> {
  const { web, search } = loadUserConfig(env).config;
  if (!search) return { web };
  return { web, search: { ...search, ...(search.apiKey ? { apiKey: expandVars(search.apiKey, env) } : {}) } };
}
