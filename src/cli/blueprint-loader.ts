/**
 * The one way a `lev` command loads a blueprint from disk: with the user's
 * config read as `lev validate` reads it, so that MCP tools granted by name,
 * `[security] allow_seed_commands`, read-path grants and the model table are
 * the same facts for `run`, `blueprint push`, `add`, `test`, `context
 * simulate` and `validate` (docs/reference/blueprint.md#user-config).
 * `test/folders.test.ts` refuses a command that calls the lower-level loader
 * itself.
 */

import { dirname } from 'node:path';
import { type LoadOptions, type LoadResult, loadBlueprint, loadBlueprintFromString } from '../blueprint/load.js';
import { loadUserConfig, type UserConfig } from '../blueprint/user-config.js';
import type { Diagnostic } from '../errors.js';

export interface BlueprintLoader {
  /** The user's config as read, with what it got wrong. */
  config: UserConfig;
  configDiagnostics: Diagnostic[];
  /** A blueprint directory or file, loaded against that config. */
  load(path: string, opts?: CommandLoadOptions): LoadResult;
  /** A blueprint's text the command holds itself (`lev doctor`'s check run), loaded the same way. */
  loadText(toml: string, file: string, opts?: CommandLoadOptions): LoadResult;
}

export interface CommandLoadOptions {
  /** `--window`: every stage's window for the window-dependent checks. */
  window?: number;
  /** Where the run's read paths resolve (default: the current directory). */
  workdir?: string;
}

export function blueprintLoader(env: NodeJS.ProcessEnv = process.env): BlueprintLoader {
  const { config, diagnostics } = loadUserConfig(env);
  const options = (opts: CommandLoadOptions): LoadOptions => ({
    userConfig: config,
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.workdir !== undefined ? { workdir: opts.workdir } : {}),
  });
  return {
    config,
    configDiagnostics: diagnostics,
    load: (path, opts = {}) => loadBlueprint(path, options(opts)),
    loadText: (toml, file, opts = {}) => loadBlueprintFromString(toml, dirname(file), file, options(opts)),
  };
}
