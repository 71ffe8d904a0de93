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

/** Reads and compiles one script; sets `scriptSource` when it is valid. */
function checkScript(bp: Blueprint, def: RegionDef, at: string[], findings: Findings): void {
  const script = def.script;
  if (script === undefined) return;
  const where = [...at, 'script'];
  const name = `Custom region "${def.name}"`;
  if (script.trim() === '') {
    findings.add(
      'custom-script-invalid',
      `${name} has an empty script path; write script = "context_hooks/${def.name}.rhai".`,
      where,
    );
    return;
  }
  const full = resolve(bp.dir, script);
  if (isAbsolute(script) || !inside(bp.dir, full) || !inside(realOrSelf(bp.dir), realOrSelf(full))) {
    findings.add(
      'custom-script-invalid',
      `${name}'s script "${script}" lies outside the blueprint directory; scripts must live inside it, so move the file there.`,
      where,
    );
    return;
  }
  let source: string;
  try {
    source = readFileSync(full, 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    findings.add(
      'custom-script-invalid',
      `${name}'s script "${script}" ${missing ? 'does not exist' : 'cannot be read'}; create it inside the blueprint directory or fix the path.`,
      where,
    );
    return;
  }
  if (source.trim() === '') {
    findings.add(
      'custom-script-invalid',
      `${name}'s script "${script}" is empty; define at least fn render(ctx) { ... }.`,
      where,
    );
    return;
  }
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
