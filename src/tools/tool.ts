/**
 * What every built-in tool shares: the context a call runs in, the outcome
 * it returns, and helpers that keep results uniform (`[code] sentence` for
 * errors, the retry note for side effects).
 */
import type { z } from 'zod';
import { formatCoded, type RuntimeCode } from '../errors.js';
import type { PermissionMode, ScriptToolDef } from '../shapes/frozen-blueprint.js';
import type { ScriptPermissions } from './builtin-names.js';
import type { PermissionLayer } from './permissions.js';
import type { ReadPathPolicy } from './read-paths.js';
import type { SandboxPolicy } from './sandbox.js';
import type { SearchConfig, WebPolicy } from './web-policy.js';

/** What a tool can know of the run that calls it (the environment tools: docs/tools.md#environment). */
export interface RunFacts {
  leviathVersion: string;
  runId?: string;
  agent: string;
  stage: string;
  /** 0-based position of the stage among the blueprint's stages, and how many there are. */
  stageIndex: number;
  stageCount: number;
  maxIterations?: number;
  /** `provider:model` the stage runs on. */
  model: string;
  tools: readonly string[];
  /** Undefined while seeding: the run has not said yet whether a person is watching. */
  unattended?: boolean;
  workdir: string;
}

export interface ToolContext {
  /** The run's working directory; path tools never write outside it. */
  workdir: string;
  readPolicy: ReadPathPolicy;
  /** Already merged: the stage's `[tool_permissions]` over the blueprint's. */
  permissions: { default?: PermissionMode; tools: Record<string, PermissionMode> };
  /** `[safe_commands] shell`, added to the built-in safe list. */
  safeCommands: string[];
  /** No user is there to answer `ask`, so `ask` is refused. */
  unattended: boolean;
  /** Activity attempt number, 1 on the first run. */
  attempt: number;
  signal?: AbortSignal;
  /** Default for `shell` when the call gives no `timeout_secs` (120). */
  shellTimeoutSecs?: number;
  /** Set by an attended caller once the user approved this `ask` call. */
  approved?: boolean;
  /** Home directory for `~`; defaults to the process's. */
  home?: string;
  /** The tools the caller's stage was given, named in the unknown-tool error; every built-in when unset. */
  granted?: readonly string[];
  /** Where `shell` runs commands; the namespace sandbox when unset. */
  sandbox?: SandboxPolicy;
  /**
   * A sub-agent's ancestors' permissions and safe lists: a call runs only if
   * every one of them would allow it too, so a worker never has more than the
   * run that started it (docs/reference/sub-agents.md#what-a-worker-inherits).
   */
  ceilings?: readonly ToolCeiling[];
  /** What `runtime_info` reports of the run (docs/tools.md#environment). */
  run?: RunFacts;
  /** The environment `locale_info` reads; the process's when unset. */
  env?: NodeJS.ProcessEnv;
  /** `[web]` of the user config, for `web_fetch`; the defaults (public addresses only) when unset. */
  web?: WebPolicy;
  /** `[web.search]` of the user config, for `web_search`; unset when none is configured. */
  search?: SearchConfig;
  /** The blueprint's script tools, and what their host functions may do (docs/reference/script-tools.md). */
  scripts?: ScriptContext;
}

export interface ScriptContext {
  tools: readonly ScriptToolDef[];
  /** `[tool_script_permissions]` of the user config. */
  permissions: ScriptPermissions;
  /** `[limits] script_shell_timeout_secs` of the blueprint: how long one `shell` host call may take. */
  shellTimeoutSecs: number;
  /** Why `shell` may not run at all here (a tool seed while command seeds are off). */
  noCommands?: string;
}

/** What one ancestor of a sub-agent allows its tools. */
export type ToolCeiling = PermissionLayer;

export interface ToolOutcome {
  content: string;
  isError: boolean;
  code?: RuntimeCode;
  /** Workdir-relative paths the call changed (or may have, on a retry). */
  modifiedPaths?: string[];
  /** Refused by `[tool_permissions]`. */
  denied?: boolean;
  /** The result carries the at-least-once retry note. */
  attemptNote?: boolean;
  /**
   * The text a file tool read or wrote, under the path it really opened
   * (workdir-relative inside it): what `[context.file_tracking]` stores.
   */
  file?: { key: string; text: string };
}

export interface BuiltinTool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

export function defineTool<S extends z.ZodType>(tool: BuiltinTool<S>): BuiltinTool {
  return tool as unknown as BuiltinTool;
}

export function success(content: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { content, isError: false, ...extra };
}

export function failure(code: RuntimeCode, message: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { content: formatCoded(code, message), isError: true, code, ...extra };
}

/** Side-effecting tools run at least once; a retry says so in its result. */
export function withRetryNote(outcome: ToolOutcome, ctx: ToolContext): ToolOutcome {
  if (ctx.attempt <= 1) return outcome;
  return {
    ...outcome,
    content: `${outcome.content}\nnote: this call is a retry (attempt ${ctx.attempt}); an earlier attempt may already have run.`,
    attemptNote: true,
  };
}

export function bytesLabel(n: number): string {
  return `${n.toLocaleString('en-US')} byte${n === 1 ? '' : 's'}`;
}
