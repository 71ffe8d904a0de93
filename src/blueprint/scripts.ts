/**
 * Custom-region scripts (docs/reference/regions.md#custom-region-hooks and docs/reference/seeds.md#confinement): each
 * must be a non-empty file inside the blueprint directory that compiles and defines `render`. The source is read here,
 * at load, so workflow code never touches the disk.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { compile } from '../rhai/index.js';
import type { Blueprint, RegionDef } from '../shapes/frozen-blueprint.js';
import type { Findings } from './findings.js';

/** Whether `path` lies strictly inside `dir`. */
export function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why a script named by the blueprint cannot be read. */
export type ScriptFileProblem = 'empty-path' | 'outside' | 'missing' | 'unreadable' | 'empty';

/**
 * Reads a script the blueprint names by a path relative to its directory
 * (custom regions, output validators, stage hooks): it must lie inside the
 * directory, links resolved, and hold something.
 */
export function readBlueprintScript(
  dir: string,
  path: string,
): { ok: true; source: string } | { ok: false; problem: ScriptFileProblem } {
  if (path.trim() === '') return { ok: false, problem: 'empty-path' };
  const full = resolve(dir, path);
  if (isAbsolute(path) || !inside(dir, full) || !inside(realOrSelf(dir), realOrSelf(full)))
    return { ok: false, problem: 'outside' };
  let source: string;
  try {
    source = readFileSync(full, 'utf8');
  } catch (err) {
    return { ok: false, problem: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' };
  }
  if (source.trim() === '') return { ok: false, problem: 'empty' };
  return { ok: true, source };
}

/** What each problem means for a script at `path`, as the middle of a sentence. */
export function scriptFileProblem(path: string, problem: ScriptFileProblem): string {
  switch (problem) {
    case 'empty-path':
      return 'has an empty path';
    case 'outside':
      return `"${path}" lies outside the blueprint directory; scripts must live inside it, so move the file there`;
    case 'missing':
      return `"${path}" does not exist; create it inside the blueprint directory or fix the path`;
    case 'unreadable':
      return `"${path}" cannot be read; create it inside the blueprint directory or fix the path`;
    case 'empty':
      return `"${path}" is empty`;
  }
}

/** Reads and compiles one script; sets `scriptSource` when it is valid. */
function checkScript(bp: Blueprint, def: RegionDef, at: string[], findings: Findings): void {
  const script = def.script;
  if (script === undefined) return;
  const where = [...at, 'script'];
  const name = `Custom region "${def.name}"`;
  const read = readBlueprintScript(bp.dir, script);
  if (!read.ok) {
    const hint: Partial<Record<ScriptFileProblem, string>> = {
      'empty-path': `; write script = "context_hooks/${def.name}.rhai"`,
      empty: '; define at least fn render(ctx) { ... }',
    };
    findings.add(
      'custom-script-invalid',
      `${name}'s script ${scriptFileProblem(script, read.problem)}${hint[read.problem] ?? ''}.`,
      where,
    );
    return;
  }
  const source = read.source;
  const compiled = compile(source, script);
  if (!compiled.ok) {
    findings.add(
      'custom-script-invalid',
      `${name}'s script does not compile: ${compiled.error.message}; fix the script there.`,
      where,
    );
    return;
  }
  if (!compiled.script.hasFunction('render')) {
    findings.add(
      'custom-script-invalid',
      `${name}'s script "${script}" has no render function; add fn render(ctx) { ... } returning the text to show.`,
      where,
    );
    return;
  }
  def.scriptSource = source;
}

export function checkScripts(bp: Blueprint, findings: Findings): void {
  for (const def of bp.regions) checkScript(bp, def, ['context', 'regions', def.name], findings);
  const global = new Map(bp.regions.map((r) => [r.name, r]));
  for (const stage of bp.stages) {
    for (const def of stage.regions ?? []) {
      const inherited = global.get(def.name);
      if (inherited?.script === def.script) {
        if (inherited?.scriptSource !== undefined) def.scriptSource = inherited.scriptSource;
        continue;
      }
      checkScript(bp, def, ['stages', stage.name, 'context', 'regions', def.name], findings);
    }
  }
}
