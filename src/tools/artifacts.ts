/**
 * The `artifacts` of a `submit_output` call (docs/reference/stages.md#artifacts): the
 * files the answer names for the caller to read, as paths relative to the working
 * directory. Each must resolve inside it, by the confinement every path tool uses
 * (`src/tools/confine.ts`); a file need not exist yet. One path that escapes refuses
 * the whole submission, as in the original, so a named file is always one the
 * caller can fetch. The tool worker checks them (`src/runtime/node/tool-call.ts`) and hands
 * `submitOutput` the verdict.
 */
import { formatCoded } from '../errors.js';
import type { Artifacts } from '../outputs/submit.js';
import { confinePathSync } from './confine.js';
import { NO_READ_PATHS } from './read-paths.js';

/** Paths one submission may name; an answer that points at more files is a listing, not a list of artifacts. */
export const MAX_ARTIFACTS = 100;

/** The workdir-relative paths `artifacts` names (blank ones skipped, duplicates once), or why the submission is refused. */
export function checkArtifacts(value: unknown, workdir: string | undefined): Artifacts {
  if (value === undefined || value === null) return { ok: true, paths: [] };
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'string'))
    return {
      ok: false,
      reply: formatCoded(
        'bad-argument',
        'submit_output `artifacts` is a list of file paths relative to the working directory, such as ["report.md"]; call it again.',
      ),
    };
  const listed = [...new Set((value as string[]).map((p) => p.trim()).filter((p) => p !== ''))];
  if (listed.length === 0) return { ok: true, paths: [] };
  if (listed.length > MAX_ARTIFACTS)
    return {
      ok: false,
      reply: formatCoded(
        'bad-argument',
        `submit_output names ${listed.length} artifacts; name at most ${MAX_ARTIFACTS} (write a listing to a file and name that).`,
      ),
    };
  if (workdir === undefined)
    return {
      ok: false,
      reply: formatCoded(
        'path-outside-workdir',
        'this run has no working directory to resolve artifacts against; submit the answer without `artifacts`.',
      ),
    };
  const paths: string[] = [];
  const outside: string[] = [];
  for (const p of listed) {
    const confined = confinePathSync(p, 'read', { workdir, readPolicy: NO_READ_PATHS });
    if (!confined.ok || !confined.path.inside) outside.push(p);
    else if (!paths.includes(confined.path.display)) paths.push(confined.path.display);
  }
  if (outside.length > 0)
    return {
      ok: false,
      reply: formatCoded(
        'path-outside-workdir',
        `these artifact paths do not resolve inside the working directory: ${outside.join(', ')}; name files inside it, relative to it, and call submit_output again.`,
      ),
    };
  return { ok: true, paths };
}

/** The lines `lev run` and `lev result` list the artifacts under: `Files produced (2):` and one indented path each. */
export function artifactLines(paths: readonly string[] | undefined): string[] {
  if (!paths?.length) return [];
  return [`Files produced (${paths.length}):`, ...paths.map((p) => `  ${p}`)];
}
