/**
 * The context a run's tools execute in: workdir confinement, read grants
 * from the user's config, merged permissions. Built per call on the worker,
 * so grants are never carried through workflow history.
 */
import { homedir } from 'node:os';
import type { Blueprint, ToolPermissions } from '../../blueprint/types.js';
import { loadUserConfig } from '../../blueprint/user-config.js';
import type { ReadPathPolicy } from '../../tools/read-paths.js';
import { compileReadPaths } from '../../tools/read-paths.js';

/** The stage's `[tool_permissions]` over the blueprint's. */
export function mergedPermissions(bp: Blueprint, stage: string): ToolPermissions {
  const own = bp.stages.find((s) => s.name === stage)?.toolPermissions;
  const mode = own?.default ?? bp.toolPermissions.default;
  return { ...(mode ? { default: mode } : {}), tools: { ...bp.toolPermissions.tools, ...(own?.tools ?? {}) } };
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
