/** Where installed agents live (docs/reference/installed-agents.md#where-they-live). */
import { resolve } from 'node:path';
import { dataPath } from '../state/locations.js';

/** `$LEVIATH_AGENTS_DIR`, else `agents/` in the data folder. */
export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.LEVIATH_AGENTS_DIR?.trim();
  return explicit ? resolve(explicit) : dataPath('agents', env);
}
