import type { Diagnostic } from '../errors.js';
import type { ReadPathPolicy } from '../tools/read-paths.js';
import type { SandboxPolicy } from '../tools/sandbox.js';
import type { RunFacts, ScriptContext, ToolCeiling, ToolContext } from '../tools/tool.js';

/** Everything seed resolution needs from the spawn request and the user's config. */
export interface SeedInputs {
  task?: string;
  /** Named values from the caller (a parent agent or `lev run`). */
  caller: Record<string, string>;
  workdir: string;
  readPolicy: ReadPathPolicy;
  /** `--no-seed-commands`. */
  noSeedCommands: boolean;
  /** `[security] allow_seed_commands`. */
  allowSeedCommands: boolean;
  /** `[safe_commands] shell`. */
  safeCommands: string[];
  permissions: ToolContext['permissions'];
  /** `[limits] script_shell_timeout_secs` (default 60). */
  shellTimeoutSecs: number;
  /** Activity attempt, for the retry note of side-effecting tool seeds. */
  attempt?: number;
  /** Home directory for `~`; defaults to the process's. */
  home?: string;
  /** Where command seeds and `shell` tool seeds run; the namespace sandbox when unset. */
  sandbox?: SandboxPolicy;
  /** A sub-agent's ancestors: a command seed must be pre-approved by each one's safe list too. */
  ceilings?: readonly ToolCeiling[];
  /** What a `runtime_info` tool seed reports of the run. */
  run?: RunFacts;
  /** The blueprint's script tools, which a tool seed may name (docs/reference/script-tools.md#as-a-seed). */
  scripts?: ScriptContext;
}

export interface SeedText {
  text: string;
  key?: string;
}

/** Raw seed texts in order; fitting them into the region's budget is the caller's job. */
export interface SeedResult {
  region: string;
  texts: SeedText[];
  warnings: Diagnostic[];
}
