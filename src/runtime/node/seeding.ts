/**
 * The seed activity's work (docs/reference/seeds.md): resolve the seeds of a run's regions
 * against the working directory and count what they produced. Seeds run as
 * activities, so replay, retries of the workflow and continue-as-new never
 * run them again.
 */

import { toContent } from '../../blobs/index.js';
import { stageModel } from '../../blueprint/stage-layouts.js';
import { LevError } from '../../errors.js';
import { encodingFor, lookupModel } from '../../providers/builtin-models.js';
import { effectiveSeed, preflightSeedPaths, resolveSeed, type SeedInputs } from '../../seeds/index.js';
import type { Blueprint } from '../../shapes/frozen-blueprint.js';
import { countTokens } from '../../tokens/index.js';
import { runFactsFor } from '../../tools/env-info.js';
import { stageTools } from '../../tools/grants.js';
import { mergedPermissions } from '../../tools/permissions.js';
import type { SeededRegion, SeedRequest, SeedRunInputs } from '../activity-types.js';
import type { SeedEntryText } from '../ops.js';
import type { RunStore } from './run-store.js';
import {
  type Ancestor,
  ancestorsOf,
  readPolicyUnder,
  sandboxUnder,
  scriptContext,
  toolCeilings,
} from './tool-context.js';

export type { SeededRegion, SeedRequest, SeedRunInputs };

/**
 * What seed resolution needs; a sub-agent's seeds stay under its ancestors'
 * reads, commands and permissions, and run with the permissions of the stage
 * the run starts at.
 */
export function seedInputs(
  bp: Blueprint,
  req: SeedRunInputs,
  env: NodeJS.ProcessEnv,
  ancestors: readonly Ancestor[] = [],
  stage = bp.agent.entryStage,
): SeedInputs {
  const reads = readPolicyUnder(bp, req.workdir, env, ancestors);
  const scripts = scriptContext(bp, env);
  return {
    ...(req.task !== undefined ? { task: req.task } : {}),
    caller: req.caller,
    workdir: req.workdir,
    readPolicy: reads,
    sandbox: sandboxUnder(bp, reads, env, ancestors),
    noSeedCommands: req.noSeedCommands,
    allowSeedCommands: bp.security.allowSeedCommands && ancestors.every((a) => a.bp.security.allowSeedCommands),
    safeCommands: bp.safeCommands.shell,
    permissions: mergedPermissions(bp, stage),
    shellTimeoutSecs: bp.limits.scriptShellTimeoutSecs,
    ...(ancestors.length > 0 ? { ceilings: toolCeilings(ancestors) } : {}),
    run: runFactsFor(bp, stage, { model: stageModel(bp, stage), tools: stageTools(bp, stage), workdir: req.workdir }),
    ...(scripts ? { scripts } : {}),
  };
}

/** Spawn-time refusals (confinement, task acceptance) before anything is read. */
export function preflight(bp: Blueprint, req: SeedRunInputs, env: NodeJS.ProcessEnv): void {
  checkSeedPaths(bp, seedInputs(bp, req, env));
}

function checkSeedPaths(bp: Blueprint, inputs: SeedInputs): void {
  const errors = preflightSeedPaths(bp, inputs).filter((d) => d.severity === 'error');
  const first = errors[0];
  if (first) throw new LevError(first.code, errors.map((d) => d.message).join(' '), errors);
}

export async function resolveRunSeeds(store: RunStore, req: SeedRequest): Promise<SeededRegion[]> {
  const bp = await store.blueprint(req.blueprintHash);
  const env = store.config.env;
  const ancestors = await ancestorsOf(store, req.ceiling);
  const inputs = seedInputs(bp, req, env, ancestors, ancestors.length > 0 ? req.stage : bp.agent.entryStage);
  if (!req.regions) checkSeedPaths(bp, inputs);
  const model = stageModel(bp, req.stage);
  const encoding = encodingFor(model, lookupModel(bp.models, model));
  const out: SeededRegion[] = [];
  for (const def of bp.regions) {
    const seed = effectiveSeed(def);
    if (!seed) continue;
    if (req.regions ? !req.regions.includes(def.name) : false) continue;
    const result = await resolveSeed({ ...def, seed }, inputs);
    const texts: SeedEntryText[] = [];
    for (const t of result.texts) {
      texts.push({
        content: await toContent(store.blobs, t.text),
        tokens: countTokens(t.text, encoding),
        ...(t.key ? { key: t.key } : {}),
      });
    }
    out.push({ region: def.name, texts, warnings: result.warnings.map((w) => w.message) });
  }
  return out;
}
