/**
 * A run's input that names a pushed blueprint instead of carrying it
 * (docs/reference/cluster-runs.md#blueprints-by-reference): small enough to
 * type into the Web UI's start form or `temporal workflow start --input`.
 * Pure: the run workflow tells the two inputs apart with it.
 */

export interface RefRunInput {
  /** `name` (its latest version) or `name@version`, as `lev blueprint push` stored it. */
  blueprint: string;
  task?: string;
  /** Absolute working directory the tools and seeds are confined to. */
  workdir: string;
  /** Named caller values for `input` and `{caller = "k"}` seeds. */
  inputs?: Record<string, string>;
  /** The tool worker's task queue; default: the one `lev worker --tools --workdir` polls on the resolving worker's host. */
  toolQueue?: string;
  /** A person attends: `ask` permissions and `ask_user` wait for `lev approve` / `lev answer`. */
  attended?: boolean;
}

export function isRefInput(start: unknown): start is RefRunInput {
  return (
    typeof start === 'object' && start !== null && typeof (start as { blueprint?: unknown }).blueprint === 'string'
  );
}
