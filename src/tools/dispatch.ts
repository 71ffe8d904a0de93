/**
 * The one entry point for running a built-in tool. Whatever a model or a
 * user can get wrong (unknown tool, bad arguments, refused path, denied
 * permission, failing command) comes back as an error result with a
 * `[code]` prefix; nothing here throws for it.
 */
import type { z } from 'zod';
import type { ScriptToolDef } from '../shapes/frozen-blueprint.js';
import { BUILTIN_TOOLS, canonicalTool, isContextTool } from './builtin-names.js';
import { type PermissionDecision, strictestDecision } from './permissions.js';
import { BUILTIN_TOOL_TABLE } from './registry.js';
import { runScriptTool, scriptArgsCheck } from './script-run.js';
import { type BuiltinTool, failure, type ToolContext, type ToolOutcome } from './tool.js';

export type { ToolContext, ToolOutcome } from './tool.js';

function argumentsObject(raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'string') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function describeIssues(error: z.ZodError, raw: unknown): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return `unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
      }
      const name = issue.path.map(String).join('.');
      if (name === '') return `the arguments must be a JSON object (${issue.message})`;
      const given =
        typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[String(issue.path[0])] : undefined;
      if (given === undefined && issue.path.length === 1) return `missing required argument \`${name}\``;
      return `\`${name}\`: ${issue.message}`;
    })
    .join('; ');
}

/** The decision of the call's own permissions and of every ceiling above it (a sub-agent's ancestors). */
function strictest(name: string, args: Record<string, unknown>, ctx: ToolContext): PermissionDecision {
  const own = { permissions: ctx.permissions, safeCommands: ctx.safeCommands };
  return strictestDecision(name, args, [own, ...(ctx.ceilings ?? [])], ctx.unattended);
}

/** A script tool's arguments against its declared schema: the object, or why they do not fit. */
function parseScriptArgs(
  def: ScriptToolDef,
  args: unknown,
): { success: true; data: unknown } | { success: false; why: string } {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { success: false, why: 'the arguments must be a JSON object' };
  const validate = scriptArgsCheck(def);
  if (!validate || validate(args)) return { success: true, data: args };
  const why = (validate.errors ?? [])
    .map((e) => {
      if (e.keyword === 'required') return `missing required argument \`${e.params.missingProperty}\``;
      const at = e.instancePath.slice(1).replaceAll('/', '.');
      return at === '' ? `the arguments ${e.message}` : `\`${at}\`: ${e.message}`;
    })
    .join('; ');
  return { success: false, why };
}

/** Checks a call's arguments against the tool's schema. */
function parseArgs(
  tool: BuiltinTool | undefined,
  script: ScriptToolDef | undefined,
  args: unknown,
): { success: true; data: unknown } | { success: false; why: string } {
  if (script) return parseScriptArgs(script, args);
  const parsed = tool!.schema.safeParse(args);
  return parsed.success ? parsed : { success: false, why: describeIssues(parsed.error, args) };
}

export async function dispatchTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  const canonical = canonicalTool(name);
  const tool = BUILTIN_TOOL_TABLE.get(canonical);
  // A script never takes a built-in's name (docs/reference/script-tools.md#names), so the built-in is looked up first.
  const script = tool ? undefined : ctx.scripts?.tools.find((t) => t.name === canonical);
  if (!tool && !script) {
    const why = isContextTool(canonical)
      ? ' Context tools are answered by the engine, not by the tool dispatcher.'
      : '';
    return failure(
      'unknown-tool',
      `There is no built-in tool \`${name}\`.${why} Available: ${(ctx.granted ?? BUILTIN_TOOLS).join(', ')}.`,
    );
  }

  const args = argumentsObject(rawArgs);
  const denyFirst = strictest(canonical, {}, ctx);
  if (denyFirst.mode !== 'allow' && denyFirst.code === 'permission-denied') {
    return failure(denyFirst.code, denyFirst.message, { denied: true });
  }
  const parsed = parseArgs(tool, script, args);
  if (!parsed.success) {
    return failure('bad-argument', `${canonical}: ${parsed.why}. See the tool's parameter schema.`);
  }
  const decision = strictest(canonical, parsed.data as Record<string, unknown>, ctx);
  if (decision.mode === 'deny' || (decision.mode === 'ask' && ctx.approved !== true)) {
    return failure(decision.code, decision.message, { denied: true });
  }

  try {
    if (script) return await runScriptTool(script, parsed.data as Record<string, unknown>, ctx);
    return await tool!.run(parsed.data, ctx);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return failure('tool-failed', `${canonical} failed: ${reason}. Check the path or arguments and try again.`);
  }
}
