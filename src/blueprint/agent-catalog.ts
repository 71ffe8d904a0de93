/**
 * The other blueprints a run may start (docs/reference/sub-agents.md#other-blueprints):
 * every `worker_agent` and every `[agent] sub_agents` entry, resolved and
 * loaded on the client with the blueprint that names them, recursively, into
 * one catalog carried by the blueprint the run starts with. Workflow code
 * never reads a blueprint from disk, and a worker on another machine needs
 * nothing but the blob store.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { Findings, KeyPath } from './findings.js';

/** The blueprints loaded so far for one run, by file; `null` while one is still being loaded (a cycle). */
export type Catalog = Map<string, Blueprint | null>;

/** How the catalog loads one blueprint: the file it read and what came of it. */
export type AgentLoader = (
  path: string,
  catalog: Catalog,
) => { file: string; blueprint?: Blueprint; diagnostics: Diagnostic[] };

/**
 * Where a name leads from the blueprint in `dir`: a bare name is a blueprint
 * directory next to this one (`blueprints/researcher` for a blueprint in
 * `blueprints/reviewer`), else the installed agent of that name under
 * `installed` (docs/reference/installed-agents.md); anything with a slash or
 * a dot in front is a path relative to `dir`.
 */
export function agentPath(dir: string, name: string, installed?: string): string {
  if (isAbsolute(name)) return name;
  const bare = !name.includes('/') && !name.includes('\\') && !name.startsWith('.');
  if (!bare) return resolve(dir, name);
  const sibling = resolve(dir, '..', name);
  if (existsSync(sibling) || installed === undefined) return sibling;
  const byName = join(installed, name);
  return existsSync(byName) ? byName : sibling;
}

export interface AgentName {
  name: string;
  at: KeyPath;
}

/**
 * Loads every named agent into `catalog` and returns the blueprint's refs
 * (name -> catalog key). A name that leads nowhere is `worker-agent-unknown`,
 * one whose blueprint fails validation `worker-agent-invalid`.
 */
export function resolveAgents(
  dir: string,
  names: readonly AgentName[],
  catalog: Catalog,
  load: AgentLoader,
  findings: Findings,
  installed?: string,
): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const { name, at } of names) {
    if (Object.hasOwn(refs, name)) continue;
    const path = agentPath(dir, name, installed);
    if (name.trim() === '' || !existsSync(path)) {
      const where = installed ? ` nor is an agent of that name installed in ${installed}` : '';
      findings.add(
        'worker-agent-unknown',
        `"${name}" names no blueprint: ${path} does not exist${where}. Write the name of a blueprint directory next to this one or of an installed agent (\`lev add\`), or a path relative to ${dir}.`,
        at,
      );
      continue;
    }
    const known = [...catalog.keys()].find((file) => file === path || dirname(file) === path);
    if (known !== undefined) {
      refs[name] = known;
      alsoByName(refs, catalog.get(known), known);
      continue;
    }
    const loaded = load(path, catalog);
    const error = loaded.diagnostics.find((d) => d.severity === 'error');
    if (!loaded.blueprint || error) {
      const where = error?.line ? `${error.file ?? loaded.file}:${error.line}` : (error?.file ?? loaded.file);
      findings.add(
        'worker-agent-invalid',
        `The blueprint "${name}" (${loaded.file}) does not validate: ${where}: ${error?.message ?? 'it could not be loaded'} [${error?.code ?? 'blueprint-invalid'}]; run lev validate on it.`,
        at,
      );
      continue;
    }
    refs[name] = loaded.file;
    alsoByName(refs, loaded.blueprint, loaded.file);
  }
  return refs;
}

/** A model may also name an agent by its `[agent] name`, when no other ref takes that name. */
function alsoByName(refs: Record<string, string>, bp: Blueprint | null | undefined, key: string): void {
  if (bp && !Object.hasOwn(refs, bp.agent.name)) refs[bp.agent.name] = key;
}
