/**
 * The blueprint a command names: a directory or file, loaded and validated
 * against the user's config (the errors of both printed, exit 2), or the
 * reference of a pushed blueprint
 * (docs/reference/cluster-runs.md#blueprints-by-reference).
 */
import { withBlueprintStore } from '../blueprints-store/configured.js';
import { isStoredRef } from '../blueprints-store/run-input.js';
import { type Diagnostic, LevError } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { blueprintLoader } from './blueprint-loader.js';
import { resolveBlueprintArg } from './installed-agents.js';

function printErrors(errors: Diagnostic[], file: string): void {
  for (const d of errors)
    process.stderr.write(
      `${d.file ?? file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}: error ${d.message} [${d.code}]\n`,
    );
}

/**
 * The blueprint at `path`, or a `config-invalid` / `blueprint-invalid` error
 * that carries the findings as its diagnostics: `lev serve` answers them in
 * JSON, a command prints them (`loadOrExplain`).
 */
export function loadChecked(path: string, opts: { workdir?: string } = {}, printed = false): Blueprint {
  const loader = blueprintLoader();
  const configErrors = loader.configDiagnostics.filter((d) => d.severity === 'error');
  if (configErrors.length > 0)
    throw new LevError(
      'config-invalid',
      `Your config has ${configErrors.length === 1 ? 'an error' : 'errors'}${printed ? ' (above)' : ''}; fix ${configErrors.length === 1 ? 'it' : 'them'}, and \`lev validate ${path}\` shows every finding.`,
      configErrors.map((d) => ({ ...d, file: d.file ?? 'config' })),
    );
  const loaded = loader.load(path, opts);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.blueprint || errors.length > 0)
    throw new LevError(
      'blueprint-invalid',
      `${path} is not a valid blueprint; run \`lev validate ${path}\` for every finding.`,
      errors.map((d) => ({ ...d, file: d.file ?? loaded.file })),
    );
  return loaded.blueprint;
}

/** As `loadChecked`, with the findings printed above the error line (exit 2). */
export function loadOrExplain(path: string, opts: { workdir?: string } = {}): Blueprint {
  try {
    return loadChecked(path, opts, true);
  } catch (err) {
    if (err instanceof LevError && err.diagnostics.length > 0) {
      printErrors(err.diagnostics, path);
      process.exitCode = 2;
    }
    throw err;
  }
}

/**
 * `lev run`'s argument: a path on disk, else an installed agent
 * (docs/reference/installed-agents.md), else `name` or `name@version` from the
 * blueprint store. `workdir` is where the run's read paths resolve; `quiet`
 * leaves the findings in the error instead of printing them (`lev serve`).
 */
export async function blueprintArgument(
  arg: string,
  opts: { workdir?: string; quiet?: boolean } = {},
): Promise<Blueprint> {
  const path = resolveBlueprintArg(arg);
  if (path !== arg || !isStoredRef(arg))
    return opts.quiet
      ? loadChecked(path, { ...(opts.workdir ? { workdir: opts.workdir } : {}) })
      : loadOrExplain(path, opts);
  try {
    return (await withBlueprintStore((store) => store.resolve(arg))).bp;
  } catch (err) {
    // A mistyped directory reads as a reference too: say that neither was found.
    if (err instanceof LevError && err.code === 'blueprint-ref-unknown')
      throw new LevError(
        err.code,
        `No file or directory "${arg}" here, and no pushed blueprint of that name: ${err.message}`,
      );
    throw err;
  }
}
