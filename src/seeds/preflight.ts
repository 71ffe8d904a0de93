/**
 * Spawn-time checks, made before any seed is read (docs/reference/seeds.md#task-and-inputs and
 * docs/reference/seeds.md#confinement): the task must be wanted, required inputs present,
 * and every seed path inside the workdir or granted by `[read_paths]`.
 */

import os from 'node:os';
import type { Diagnostic } from '../errors.js';
import type { Blueprint, RegionDef } from '../shapes/frozen-blueprint.js';
import { confinePathSync } from '../tools/confine.js';
import { absoluteGlob } from '../tools/glob-files.js';
import { staticPrefix } from '../tools/glob-pattern.js';
import type { SeedInputs } from './seed-inputs.js';
import { acceptedInputs, acceptsTask, callerKey, effectiveSeed, isBlank } from './task.js';

function seedPath(region: RegionDef): string {
  return `context.regions.${region.name}.seed`;
}

export function taskValue(inputs: SeedInputs): string | undefined {
  return inputs.task ?? inputs.caller.task;
}

function inputsList(bp: Blueprint): string {
  const keys = acceptedInputs(bp);
  return keys.length === 0 ? 'It takes no inputs.' : `It takes: ${keys.map((k) => `\`${k}\``).join(', ')}.`;
}

export function requiredInputMessage(region: RegionDef, key: string): string {
  if (region.requiredMessage) return region.requiredMessage;
  if (key === 'task') return `Region \`${region.name}\` is required and holds the task; pass a non-empty task.`;
  return `Region \`${region.name}\` is required and reads the input \`${key}\`; supply a non-empty value for \`${key}\`.`;
}

function taskChecks(bp: Blueprint, inputs: SeedInputs): Diagnostic[] {
  const out: Diagnostic[] = [];
  const task = taskValue(inputs);
  if (!isBlank(task) && !acceptsTask(bp)) {
    out.push({
      code: 'task-not-accepted',
      severity: 'error',
      message: `Blueprint \`${bp.agent.name}\` takes no task: no region reads it (add a region named \`task\`, or one with \`seed = "task_input"\`). ${inputsList(bp)}`,
      file: bp.file,
    });
  }
  for (const region of bp.regions) {
    const key = callerKey(region);
    if (key === undefined || !region.required) continue;
    const value = key === 'task' ? task : inputs.caller[key];
    if (isBlank(value)) {
      out.push({
        code: 'required-input-missing',
        severity: 'error',
        message: requiredInputMessage(region, key),
        path: seedPath(region),
        file: bp.file,
      });
    }
  }
  return out;
}

function refusal(region: RegionDef, what: string, message: string): Diagnostic {
  return {
    code: 'seed-path-refused',
    severity: 'error',
    message: `Region \`${region.name}\` cannot be seeded from ${what}: ${message}`,
    path: seedPath(region),
  };
}

function pathChecks(region: RegionDef, inputs: SeedInputs): Diagnostic[] {
  const seed = effectiveSeed(region);
  const opts = {
    workdir: inputs.workdir,
    readPolicy: inputs.readPolicy,
    ...(inputs.home ? { home: inputs.home } : {}),
  };
  const check = (p: string, what: string): Diagnostic[] => {
    const result = confinePathSync(p, 'read', opts);
    return result.ok ? [] : [refusal(region, what, result.message)];
  };
  switch (seed?.form) {
    case 'files':
      return seed.paths.flatMap((p) => check(p, `\`${p}\``));
    case 'rhai':
      return check(seed.path, `the script \`${seed.path}\``);
    case 'glob':
      return check(
        staticPrefix(absoluteGlob(seed.pattern, inputs.workdir, inputs.home ?? os.homedir())),
        `the glob \`${seed.pattern}\``,
      );
    default:
      return [];
  }
}

/**
 * Errors that refuse the spawn. Glob matches are checked again one by one
 * when the seed resolves, before any of them is read.
 */
export function preflightSeedPaths(bp: Blueprint, inputs: SeedInputs): Diagnostic[] {
  const out = taskChecks(bp, inputs);
  for (const region of bp.regions) {
    for (const d of pathChecks(region, inputs)) out.push({ ...d, file: bp.file });
  }
  return out;
}
