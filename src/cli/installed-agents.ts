/**
 * Installed agents (docs/reference/installed-agents.md): blueprint
 * directories copied under `agents/<name>/` of the data folder
 * (src/state/locations.ts) by `lev add`, so `lev run researcher` and
 * `worker_agent = "researcher"` find them by name wherever the run starts, as in the original Leviath.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { agentsDir } from '../blueprint/agents-dir.js';
import { BLUEPRINT_FILE_NAMES, type LoadResult } from '../blueprint/load.js';
import { LevError } from '../errors.js';
import { blueprintLoader } from './blueprint-loader.js';

export { agentsDir };

/** A name `lev add` may give an agent: it becomes a directory name, so no separators or dots first. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkName(name: string): void {
  if (!NAME.test(name) || name.length > 100)
    throw new LevError(
      'bad-agent-name',
      `"${name}" cannot name an installed agent; use letters, digits, ".", "_" and "-", starting with a letter or digit (--name researcher).`,
    );
}

function holdsBlueprint(dir: string): boolean {
  return BLUEPRINT_FILE_NAMES.some((f) => existsSync(join(dir, f)));
}

/** The directory of the installed agent `name`, if there is one. */
export function installedAgent(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!NAME.test(name)) return undefined;
  const dir = join(agentsDir(env), name);
  return holdsBlueprint(dir) ? dir : undefined;
}

/**
 * What a blueprint argument of `lev run` or `lev validate` leads to: the path
 * when it exists, else the installed agent of that name, else the path (so
 * the loader reports it missing).
 */
export function resolveBlueprintArg(arg: string, env: NodeJS.ProcessEnv = process.env): string {
  if (existsSync(arg)) return arg;
  return installedAgent(arg, env) ?? arg;
}

export interface InstalledAgent {
  name: string;
  dir: string;
  /** `[agent] description` and `version`, when the blueprint loads. */
  description?: string;
  version?: string;
  /** The first error, when it no longer validates. */
  error?: string;
}

/** Every installed agent, by name. */
export function listInstalled(env: NodeJS.ProcessEnv = process.env): InstalledAgent[] {
  const root = agentsDir(env);
  if (!existsSync(root)) return [];
  const loader = blueprintLoader(env);
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && holdsBlueprint(join(root, e.name)))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const dir = join(root, name);
      const r = loader.load(dir, { workdir: dir });
      const error = r.diagnostics.find((d) => d.severity === 'error');
      return {
        name,
        dir,
        ...(r.blueprint?.agent.description ? { description: r.blueprint.agent.description } : {}),
        ...(r.blueprint?.agent.version ? { version: r.blueprint.agent.version } : {}),
        ...(error ? { error: `${error.message} [${error.code}]` } : {}),
      };
    });
}

export interface Added {
  name: string;
  dir: string;
  /** The validation of the copy, warnings included. */
  result: LoadResult;
  replaced: boolean;
}

/**
 * Copies the blueprint directory `source` under the agents directory as
 * `name` (default: its `[agent] name`, else the directory's name). The
 * blueprint must validate first; an installed agent of that name is replaced
 * only with `force`.
 */
export function addAgent(
  source: string,
  opts: { name?: string; force?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): Added {
  const from = resolve(source);
  if (!existsSync(from) || !statSync(from).isDirectory() || !holdsBlueprint(from))
    throw new LevError(
      'blueprint-invalid',
      `${source} is not a blueprint directory: give a directory holding agent.toml or agent.leviath.`,
    );
  const loader = blueprintLoader(env);
  const checked = loader.load(from, { workdir: from });
  const configError = loader.configDiagnostics.find((d) => d.severity === 'error');
  if (configError)
    throw new LevError(
      'config-invalid',
      `Your config ${configError.file ?? ''} has an error (${configError.message} [${configError.code}]); fix it, then add the agent again.`,
    );
  const error = checked.diagnostics.find((d) => d.severity === 'error');
  if (!checked.blueprint || error)
    throw new LevError(
      'blueprint-invalid',
      `${source} is not a valid blueprint (${error?.message ?? 'it could not be loaded'} [${error?.code ?? 'blueprint-invalid'}]); run \`lev validate ${source}\` for every finding.`,
    );
  const name = opts.name ?? (NAME.test(checked.blueprint.agent.name) ? checked.blueprint.agent.name : basename(from));
  checkName(name);
  const root = agentsDir(env);
  const dir = join(root, name);
  const replaced = existsSync(dir);
  if (replaced && !opts.force)
    throw new LevError(
      'agent-exists',
      `An agent named "${name}" is already installed (${dir}); pass --force to replace it, or --name to install this one under another name.`,
    );
  if (resolve(dir) === from)
    throw new LevError('agent-exists', `${source} is the installed agent "${name}" itself; there is nothing to copy.`);
  mkdirSync(root, { recursive: true });
  // Copied to a fresh directory first, so a failed copy never leaves half an agent under the name.
  const staging = join(root, `.${name}.adding-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  cpSync(from, staging, { recursive: true, dereference: true });
  rmSync(dir, { recursive: true, force: true });
  cpSync(staging, dir, { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  return { name, dir, result: loader.load(dir, { workdir: dir }), replaced };
}

/** Deletes the installed agent `name`; returns the directory it was in. */
export function removeAgent(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = installedAgent(name, env);
  if (!dir) {
    const names = listInstalled(env).map((a) => a.name);
    throw new LevError(
      'agent-not-installed',
      `No agent named "${name}" is installed${names.length > 0 ? `; installed: ${names.join(', ')}` : ''}. \`lev list\` shows them.`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return dir;
}
