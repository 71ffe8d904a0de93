export { preflightSeedPaths } from './preflight.js';
export { resolveSeed, SEED_FILE_MAX_BYTES } from './resolve-seeds.js';
export type { SeedInputs, SeedResult, SeedText } from './seed-inputs.js';
export { acceptedInputs, acceptsTask, callerKey, effectiveSeed, seedsFromInput } from './task.js';
