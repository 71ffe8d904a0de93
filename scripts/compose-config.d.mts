// Types of scripts/compose-config.mjs for the tests that import it.
export const MODULE_DIR: string;
export function composeConfigBinary(env?: NodeJS.ProcessEnv): string;
export function ensureComposeConfig(opts?: { env?: NodeJS.ProcessEnv; log?: (line: string) => void }): string;
export function loadCompose(
  file: string,
  opts?: { profiles?: string[]; env?: Record<string, string>; binary?: string },
): { model: ComposeModel; error?: undefined } | { error: string; model?: undefined };
/** What the tests read of compose-go's model (types.Project as JSON). */
export interface ComposeModel {
  name: string;
  services: Record<string, Record<string, unknown>>;
  secrets?: Record<string, { file?: string; environment?: string }>;
  volumes?: Record<string, unknown>;
}
