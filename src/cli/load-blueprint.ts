/**
 * The blueprint a command or a program names: a directory or file, loaded
 * and validated against the user's config, or the reference of a pushed
 * blueprint (docs/reference/cluster-runs.md#blueprints-by-reference). The
 * library throws what is wrong as a coded error carrying its findings; a
 * command prints those findings first (exit 2).
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

/** The valid blueprint at `path`; `config-invalid` or `blueprint-invalid` with the errors found otherwise. */
export function loadValid(path: string, opts: { workdir?: string; env?: NodeJS.ProcessEnv } = {}): Blueprint {
  const loader = blueprintLoader(opts.env);
  const configErrors = loader.configDiagnostics.filter((d) => d.severity === 'error');
  if (configErrors.length > 0)
    throw new LevError(
      'config-invalid',
      `Your config has ${configErrors.length === 1 ? 'an error' : 'errors'} (${configErrors.map((d) => d.code).join(', ')}); fix ${configErrors.length === 1 ? 'it' : 'them'}, and \`lev validate ${path}\` shows every finding.`,
      configErrors.map((d) => ({ ...d, file: d.file ?? 'config' })),
    );
  const loaded = loader.load(path, opts.workdir !== undefined ? { workdir: opts.workdir } : {});
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.blueprint || errors.length > 0)
    throw new LevError(
      'blueprint-invalid',
      `${path} is not a valid blueprint; run \`lev validate ${path}\` for every finding.`,
      errors.map((d) => ({ ...d, file: d.file ?? loaded.file })),
    );
  return loaded.blueprint;
}

/** `loadValid` for a command: the findings printed above its one-line error, exit code 2. */
export function loadOrExplain(path: string, opts: { workdir?: string } = {}): Blueprint {
  try {
    return loadValid(path, opts);
  } catch (err) {
    if (err instanceof LevError && err.diagnostics.length > 0) {
      printErrors(err.diagnostics, path);
      process.exitCode = 2;
    }
    throw err;
  }
}

/**
 * `lev run`'s argument and a program's: a path on disk, else an installed
 * agent (docs/reference/installed-agents.md), else `name` or `name@version`
 * from the blueprint store. `workdir` is where the run's read paths resolve;
 * `explain` prints a path's findings as a command does.
 */
export async function blueprintArgument(
  arg: string,
  opts: { workdir?: string; env?: NodeJS.ProcessEnv; explain?: boolean } = {},
): Promise<Blueprint> {
  const path = resolveBlueprintArg(arg, opts.env);
  const { explain = true, ...load } = opts;
  if (path !== arg || !isStoredRef(arg)) return explain ? loadOrExplain(path, load) : loadValid(path, load);
  try {
    return (await withBlueprintStore((store) => store.resolve(arg), opts.env)).bp;
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
