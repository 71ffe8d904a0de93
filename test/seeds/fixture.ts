import type { SeedInputs } from '../../src/seeds/seed-inputs.js';
import type { Blueprint, RegionDef, SeedSpec } from '../../src/shapes/frozen-blueprint.js';
import { NO_READ_PATHS } from '../../src/tools/read-paths.js';

type SeedForm = SeedSpec extends infer S ? (S extends SeedSpec ? Omit<S, 'refresh'> : never) : never;

export function region(name: string, seed?: SeedForm, extra: Partial<RegionDef> = {}): RegionDef {
  return {
    name,
    kind: 'pinned',
    admission: 'evict',
    volatility: 'stable',
    volatilityDeclared: false,
    summarizable: true,
    required: false,
    describeInPrompt: true,
    ...(seed ? { seed: { refresh: 'once', ...seed } as SeedSpec } : {}),
    ...extra,
  };
}

export function blueprint(regions: RegionDef[]): Blueprint {
  return {
    dir: '/bp',
    file: '/bp/agent.toml',
    agent: { name: 'demo', entryStage: 'main' },
    regions,
    defaultLayout: false,
    compaction: { maxSummaryTokens: 1000, temperature: 0 },
    stages: [],
    readPaths: { allow: [] },
    toolPermissions: { tools: {} },
    safeCommands: { shell: [] },
    security: { allowSeedCommands: true, allowBlueprintReadPaths: false, readPaths: [] },
    limits: { scriptShellTimeoutSecs: 60 },
    models: {},
  };
}

export function seedInputs(workdir: string, extra: Partial<SeedInputs> = {}): SeedInputs {
  return {
    caller: {},
    workdir,
    readPolicy: NO_READ_PATHS,
    noSeedCommands: false,
    allowSeedCommands: true,
    safeCommands: [],
    permissions: { tools: {} },
    shellTimeoutSecs: 60,
    ...extra,
  };
}
