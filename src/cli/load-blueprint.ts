/**
 * The blueprint a command names: a directory or file, loaded and validated
 * (its findings printed, exit 2), or the reference of a pushed blueprint
 * (docs/reference/cluster-runs.md#blueprints-by-reference).
 */
import { loadBlueprint } from '../blueprint/load.js';
import { withBlueprintStore } from '../blueprints-store/configured.js';
import { isStoredRef } from '../blueprints-store/run-input.js';
import { LevError } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { resolveBlueprintArg } from './installed-agents.js';

export function loadOrExplain(path: string): Blueprint {
  const loaded = loadBlueprint(path);
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.blueprint || errors.length > 0) {
    for (const d of errors)
      process.stderr.write(
        `${d.file ?? loaded.file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}: error ${d.message} [${d.code}]\n`,
      );
    process.exitCode = 2;
    throw new LevError(
      'blueprint-invalid',
      `${path} is not a valid blueprint; run \`lev validate ${path}\` for every finding.`,
    );
  }
  return loaded.blueprint;
}

/**
 * `lev run`'s argument: a path on disk, else an installed agent
 * (docs/reference/installed-agents.md), else `name` or `name@version` from the
 * blueprint store.
 */
export async function blueprintArgument(arg: string): Promise<Blueprint> {
  const path = resolveBlueprintArg(arg);
  if (path !== arg || !isStoredRef(arg)) return loadOrExplain(path);
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
