/**
 * `[tool_permissions]` and `[safe_commands]` (pure: the workflow may import
 * this to decide whether to ask the user before dispatching a call).
 */

import type { RuntimeCode } from '../error-codes.js';
import type { Blueprint, PermissionMode, ToolPermissions } from '../shapes/frozen-blueprint.js';
import { canonicalTool } from './builtin-names.js';
import { isPreApproved, type SafeJudgement } from './safe-commands.js';

/** The stage's `[tool_permissions]` over the blueprint's. */
export function mergedPermissions(bp: Blueprint, stage: string): ToolPermissions {
  const own = bp.stages.find((s) => s.name === stage)?.toolPermissions;
  const mode = own?.default ?? bp.toolPermissions.default;
  return { ...(mode ? { default: mode } : {}), tools: { ...bp.toolPermissions.tools, ...(own?.tools ?? {}) } };
}

export function permissionMode(name: string, permissions: ToolPermissions): PermissionMode {
  const canonical = canonicalTool(name);
  for (const [key, mode] of Object.entries(permissions.tools)) {
    if (canonicalTool(key) === canonical) return mode;
  }
  return permissions.default ?? 'allow';
}

export type PermissionDecision =
  | { mode: 'allow' }
  | { mode: 'deny'; code: RuntimeCode; message: string }
  | { mode: 'ask'; code: RuntimeCode; message: string };

/**
 * The decision for one call. `ask` on `shell` becomes `allow` when the
 * command is pre-approved by the safe list (docs/reference/seeds.md#command-seeds). An `ask` that nobody
 * can answer (unattended) is a refusal that says how to allow the tool.
 */
export function decidePermission(
  name: string,
  args: Record<string, unknown>,
  permissions: ToolPermissions,
  safeCommands: readonly string[],
  unattended: boolean,
  /** How the safe list judges a command (`SafeJudgement`). */
  judgement: SafeJudgement = 'arguments',
): PermissionDecision {
  const canonical = canonicalTool(name);
  const mode = permissionMode(canonical, permissions);
  if (mode === 'allow') return { mode };
  if (mode === 'deny') {
    return {
      mode,
      code: 'permission-denied',
      message: `\`${canonical}\` is denied by [tool_permissions] for this stage; do the work with another tool, or ask the user to set \`[tool_permissions] ${canonical} = "allow"\`.`,
    };
  }
  let notCovered = '';
  if (canonical === 'shell' && typeof args.command === 'string') {
    const approval = isPreApproved(args.command, safeCommands, judgement);
    if (approval.ok) return { mode: 'allow' };
    notCovered = ` or add the command to \`[safe_commands] shell\` (not covered: ${approval.uncovered.join('; ')})`;
  }
  if (unattended) {
    return {
      mode: 'deny',
      code: 'permission-ask-unattended',
      message: `\`${canonical}\` needs approval ([tool_permissions] ${canonical} = "ask") and this run is unattended, so nobody can approve it; to allow it, set \`[tool_permissions] ${canonical} = "allow"\` in the blueprint${notCovered}.`,
    };
  }
  return {
    mode: 'ask',
    code: 'permission-ask',
    message: `\`${canonical}\` needs the user's approval before it runs ([tool_permissions] ${canonical} = "ask"); to skip the question, set \`[tool_permissions] ${canonical} = "allow"\`${notCovered}.`,
  };
}

/** What one level of a run's permissions allows: its merged `[tool_permissions]` and its safe list. */
export interface PermissionLayer {
  permissions: ToolPermissions;
  safeCommands: readonly string[];
}

/**
 * The decision of several levels at once (a sub-agent's own permissions and
 * every ancestor's): a refusal wins over a question, a question over an
 * allowance (docs/reference/sub-agents.md#what-a-worker-inherits).
 */
export function strictestDecision(
  name: string,
  args: Record<string, unknown>,
  layers: readonly PermissionLayer[],
  unattended: boolean,
): PermissionDecision {
  const decisions = layers.map((l) => decidePermission(name, args, l.permissions, l.safeCommands, unattended));
  return decisions.find((d) => d.mode === 'deny') ?? decisions.find((d) => d.mode === 'ask') ?? { mode: 'allow' };
}
