/**
 * Blueprints for a program (docs/library.md#blueprints): checked as `lev
 * validate` checks them, or loaded as `lev run` loads its argument, through
 * the one loading path (`src/cli/blueprint-loader.ts`) against the user's config.
 */
import { type ResolvedStageBudgets, resolveStageBudgets } from '../blueprint/stage-layouts.js';
import { blueprintLoader } from '../cli/blueprint-loader.js';
import { resolveBlueprintArg } from '../cli/installed-agents.js';
import { blueprintArgument } from '../cli/load-blueprint.js';
import type { Diagnostic } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';

export interface BlueprintOptions {
  /** Where the run's read paths resolve; the current directory by default. */
  workdir?: string;
  /** The environment the user config (`LEVIATH_HOME`, `XDG_CONFIG_HOME`) is found with; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/** What `lev validate --json` says of one blueprint. */
export interface BlueprintReport {
  /** The file that was read. */
  file: string;
  /** No finding is an error (the user config's included). */
  ok: boolean;
  /** Present when `ok`. */
  blueprint?: Blueprint;
  /** Every finding, with its stable code (docs/reference/errors.md), the user config's first. */
  diagnostics: Diagnostic[];
  /** What each stage's region budgets resolve to. */
  stages: ResolvedStageBudgets[];
}

/** Checks a blueprint directory or file (or an installed agent) and says every finding; never throws for a bad one. */
export function validateBlueprint(path: string, opts: BlueprintOptions & { window?: number } = {}): BlueprintReport {
  const loader = blueprintLoader(opts.env);
  const loaded = loader.load(resolveBlueprintArg(path, opts.env), {
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.workdir !== undefined ? { workdir: opts.workdir } : {}),
  });
  const diagnostics = [...loader.configDiagnostics, ...loaded.diagnostics];
  const ok = loaded.blueprint !== undefined && !diagnostics.some((d) => d.severity === 'error');
  return {
    file: loaded.file,
    ok,
    ...(ok && loaded.blueprint ? { blueprint: loaded.blueprint } : {}),
    diagnostics,
    stages: loaded.blueprint ? resolveStageBudgets(loaded.blueprint, opts.window) : [],
  };
}

/**
 * The blueprint a run would start with: a directory or file, an installed
 * agent, or a pushed `name` / `name@version`. Refused with `blueprint-invalid`
 * (or `config-invalid`) carrying the errors as `diagnostics`, or
 * `blueprint-ref-unknown` when nothing of that name is found.
 */
export function loadBlueprint(pathOrRef: string, opts: BlueprintOptions = {}): Promise<Blueprint> {
  return blueprintArgument(pathOrRef, { ...opts, explain: false });
}
