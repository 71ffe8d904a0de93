/**
 * `worker_query`, the original Leviath's way of choosing a fan-out's worker
 * by description (docs/reference/sub-agents.md#the-fan-out-stage): the first
 * installed agent, by name, whose directory name or `[agent] description`
 * contains the query, ignoring case. The original searched when the fan-out
 * ran; here it is searched when the blueprint loads, so the run carries the
 * worker as it carries any `worker_agent`, and a query nothing matches is an
 * error then rather than failed workers later.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';

/** The blueprint file of an installed agent's directory, as `BLUEPRINT_FILE_NAMES` orders them. */
function blueprintIn(dir: string, files: readonly string[]): string | undefined {
  for (const name of files) {
    try {
      return readFileSync(join(dir, name), 'utf8');
    } catch {}
  }
  return undefined;
}

function descriptionOf(text: string): string {
  try {
    const agent = (parse(text) as { agent?: { description?: unknown } }).agent;
    return typeof agent?.description === 'string' ? agent.description : '';
  } catch {
    return '';
  }
}

/** The directory of the installed agent `query` chooses under `agentsDir`; undefined when none matches. */
export function discoverWorker(agentsDir: string, query: string, files: readonly string[]): string | undefined {
  const needle = query.trim().toLowerCase();
  if (needle === '') return undefined;
  let names: string[];
  try {
    names = readdirSync(agentsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const dir = join(agentsDir, name);
    const text = blueprintIn(dir, files);
    if (text === undefined) continue;
    if (name.toLowerCase().includes(needle) || descriptionOf(text).toLowerCase().includes(needle)) return dir;
  }
  return undefined;
}
