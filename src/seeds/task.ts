/**
 * Which caller values a blueprint reads (docs/reference/seeds.md#task-and-inputs).
 * Pure: used at spawn, by validation and by the CLI's error messages.
 */
import type { Blueprint, RegionDef, SeedSpec } from '../shapes/frozen-blueprint.js';

/**
 * The region's seed, with the implicit `task_input` of a region named `task`
 * that declares none. A `seed` that validation reported as not understood
 * (`seedIgnored`) stays absent, so the runtime leaves the region empty
 * exactly as validation said.
 */
export function effectiveSeed(region: RegionDef): SeedSpec | undefined {
  if (region.seed) return region.seed;
  if (region.name === 'task' && !region.seedIgnored) return { form: 'task_input', refresh: 'once' };
  return undefined;
}

/**
 * Whether every seed of the blueprint comes from the run's own input (its
 * task, its inputs, its caller, a literal): seeds that read nothing from the
 * host, so they can be resolved wherever the run starts, in moments.
 */
export function seedsFromInput(regions: readonly RegionDef[]): boolean {
  return regions.every((r) => {
    const form = effectiveSeed(r)?.form;
    return form === undefined || form === 'task_input' || form === 'input' || form === 'caller' || form === 'literal';
  });
}

/** The caller key a region is seeded from, if it is caller-seeded. */
export function callerKey(region: RegionDef): string | undefined {
  const seed = effectiveSeed(region);
  switch (seed?.form) {
    case 'task_input':
      return 'task';
    case 'input':
      return region.name;
    case 'caller':
      return seed.key;
    default:
      return undefined;
  }
}

/** True when some region reads the caller key `task`. */
export function acceptsTask(bp: Blueprint): boolean {
  return bp.regions.some((r) => callerKey(r) === 'task');
}

/** Every caller key the blueprint reads, in declaration order, without repeats. */
export function acceptedInputs(bp: Blueprint): string[] {
  const keys: string[] = [];
  for (const region of bp.regions) {
    const key = callerKey(region);
    if (key !== undefined && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

export function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}
