/** Where installed agents live (docs/reference/installed-agents.md#where-they-live). */
import { join, resolve } from 'node:path';
import { leviathHome } from '../devserver/paths.js';

/** `$LEVIATH_AGENTS_DIR`, else `<LEVIATH_HOME>/agents`. */
export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.LEVIATH_AGENTS_DIR?.trim();
  return explicit ? resolve(explicit) : join(leviathHome(env), 'agents');
}
