/**
 * The context a run's tools execute in: workdir confinement, read grants
 * from the user's config, merged permissions. Built per call on the worker,
 * so grants are never carried through workflow history.
 */
import { homedir } from 'node:os';
import { loadUserConfig } from '../../blueprint/user-config.js';
import { LevError } from '../../errors.js';
import type { Blueprint, ScriptToolDef } from '../../shapes/frozen-blueprint.js';
import { canonicalTool } from '../../tools/builtin-names.js';
import { mergedPermissions } from '../../tools/permissions.js';
import type { ReadPathPolicy } from '../../tools/read-paths.js';
import { compileReadPaths } from '../../tools/read-paths.js';
import {
  probeSandbox,
  SANDBOX_OFF_WARNING,
  SANDBOX_UNAVAILABLE,
  type SandboxPolicy,
  sandboxUnavailableMessage,
} from '../../tools/sandbox.js';
import type { ScriptContext, ToolCeiling } from '../../tools/tool.js';
import type { CeilingLayer } from '../types.js';
import type { RunStore } from './run-store.js';

/**
 * The blueprint's script tools, with `written` the scripts the run wrote that
 * the call may run (docs/reference/script-tools.md#tools-a-run-writes), and the user's
 * `[tool_script_permissions]` (docs/reference/script-tools.md); `noCommands` says why their
 * `shell` may not run (a seed whose command seeds are off). Undefined when there is no script.
 */
export function scriptContext(
  bp: Blueprint,
  env: NodeJS.ProcessEnv,
  noCommands?: string,
  written: readonly ScriptToolDef[] = [],
): ScriptContext | undefined {
  if (!bp.scriptTools && written.length === 0) return undefined;
  return {
    tools: [...(bp.scriptTools ?? []), ...written],
    permissions: loadUserConfig(env).config.toolScriptPermissions,
    shellTimeoutSecs: bp.limits.scriptShellTimeoutSecs,
    ...(noCommands ? { noCommands } : {}),
  };
}

export function readPolicy(bp: Blueprint, workdir: string, env: NodeJS.ProcessEnv): ReadPathPolicy {
  const { config } = loadUserConfig(env);
  const agentAllow = config.agentReadPaths[bp.agent.name];
  const { policy } = compileReadPaths(
    bp.readPaths.allow,
    {
      ...(agentAllow ? { agentAllow } : {}),
      securityReadPaths: [...config.security.readPaths, ...bp.security.readPaths],
      allowBlueprintReadPaths: config.security.allowBlueprintReadPaths || bp.security.allowBlueprintReadPaths,
    },
    workdir,
    homedir(),
  );
  return policy;
}

/** One ancestor of a sub-agent: its blueprint and the stage that started the line below it. */
export interface Ancestor {
  bp: Blueprint;
  stage: string;
}

export async function ancestorsOf(store: RunStore, ceiling: readonly CeilingLayer[] | undefined): Promise<Ancestor[]> {
  return Promise.all(
    (ceiling ?? []).map(async (l) => ({ bp: await store.blueprint(l.blueprintHash), stage: l.stage })),
  );
}

/** What each ancestor allows a tool call (docs/reference/sub-agents.md#what-a-worker-inherits). */
export function toolCeilings(ancestors: readonly Ancestor[]): ToolCeiling[] {
  return ancestors.map((a) => ({
    permissions: mergedPermissions(a.bp, a.stage),
    safeCommands: a.bp.safeCommands.shell,
  }));
}

/**
 * A sub-agent reads outside its workdir only where its own blueprint and
 * every ancestor's may: the policies' intersection.
 */
export function readPolicyUnder(
  bp: Blueprint,
  workdir: string,
  env: NodeJS.ProcessEnv,
  ancestors: readonly Ancestor[],
): ReadPathPolicy {
  const own = readPolicy(bp, workdir, env);
  if (ancestors.length === 0) return own;
  const above = ancestors.map((a) => readPolicy(a.bp, workdir, env));
  return {
    allows: (path) => own.allows(path) && above.every((p) => p.allows(path)),
    active: own.active,
    roots: own.roots.filter((root) => above.every((p) => p.allows(root))),
  };
}

/** A sub-agent's commands see only the variables every ancestor's commands may see. */
export function sandboxUnder(
  bp: Blueprint,
  policy: ReadPathPolicy,
  env: NodeJS.ProcessEnv,
  ancestors: readonly Ancestor[],
): SandboxPolicy {
  const own = sandboxPolicy(bp, policy, env);
  if (ancestors.length === 0) return own;
  const above = ancestors.map((a) => sandboxPolicy(a.bp, policy, env));
  const { network: _own, ...rest } = own;
  const network = own.network === true && above.every((a) => a.network === true);
  return {
    ...rest,
    env: own.env.filter((name) => above.every((a) => a.env.includes(name))),
    ...(network ? { network } : {}),
  };
}

/** Names that look like credentials: a blueprint alone cannot pass them to its commands. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * Where the run's commands execute: the user's `[sandbox] kind`, the
 * variables the user's config and the blueprint name (a blueprint's
 * credential-like names only when the user names them too), and the granted
 * read paths as read-only mounts. Nothing in a blueprint can loosen it.
 */
export function sandboxPolicy(bp: Blueprint, policy: ReadPathPolicy, env: NodeJS.ProcessEnv): SandboxPolicy {
  const { config } = loadUserConfig(env);
  const own = config.sandbox.env;
  const asked = (bp.sandbox?.env ?? []).filter((name) => !SECRET_NAME.test(name) || own.includes(name));
  return {
    kind: config.sandbox.kind,
    env: [...new Set([...own, ...asked])],
    readRoots: policy.roots,
    // The blueprint asks, the user's config allows: never one of them alone.
    ...(config.sandbox.network && bp.sandbox?.network === true ? { network: true } : {}),
  };
}

/**
 * Whether the blueprint sets out to run commands: a command seed, a `shell`
 * tool seed, or a stage that names `shell` in `available_tools`. (A stage
 * without `available_tools` may call it too; that call is refused then.)
 */
export function runsCommands(bp: Blueprint, noSeedCommands = false): boolean {
  const isShell = (name: string) => canonicalTool(name) === 'shell';
  const seedsRun = bp.security.allowSeedCommands && !noSeedCommands;
  const seeds =
    seedsRun &&
    bp.regions.some(
      (r) => r.seed?.form === 'command' || (r.seed?.form === 'tools' && r.seed.calls.some((c) => isShell(c.name))),
    );
  return seeds || bp.stages.some((s) => s.availableTools?.some(isShell) === true);
}

/** What a worker says at start about the sandbox: off by the user's choice, or not available here. */
export function workerSandboxNote(env: NodeJS.ProcessEnv): string | undefined {
  const { config } = loadUserConfig(env);
  if (config.sandbox.kind === 'none') return SANDBOX_OFF_WARNING;
  const probe = probeSandbox(env);
  if (!probe.ok)
    return `warning: [${SANDBOX_UNAVAILABLE}] ${sandboxUnavailableMessage(probe.reason)} Until then every command is refused.`;
  return undefined;
}

/**
 * Before a run starts: refuses a blueprint that runs commands when the
 * sandbox cannot be built, and says so when the user turned it off.
 */
export function checkSandbox(
  bp: Blueprint,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
  noSeedCommands = false,
): void {
  const { config } = loadUserConfig(env);
  if (config.sandbox.kind === 'none') {
    warn(SANDBOX_OFF_WARNING);
    return;
  }
  if (!runsCommands(bp, noSeedCommands)) return;
  const probe = probeSandbox(env);
  if (!probe.ok) throw new LevError(SANDBOX_UNAVAILABLE, sandboxUnavailableMessage(probe.reason));
}
