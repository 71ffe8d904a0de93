/**
 * One model for a whole blueprint: `lev run --model` and `lev fork --model`
 * (docs/reference/cluster-runs.md#fork) switch every stage, the agent
 * default and the catalog's agents to it, dropping the stages' model chains.
 */
import { LevError } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { wireFields } from '../shapes/parameter-wires.js';

/**
 * Every stage (and the agent default) switched to one model, the run's
 * sub-agents too. A stage's model parameters go with it, so a model whose
 * provider has no setting for one is refused (docs/providers.md#model-parameters).
 */
export function withModel(bp: Blueprint, model: string): Blueprint {
  for (const stage of bp.stages) {
    const problems = stage.modelParameters ? wireFields(model, stage.modelParameters).problems : [];
    if (problems.length > 0)
      throw new LevError(
        'model-parameter-unsupported',
        `Stage "${stage.name}" of ${bp.agent.name} sets model parameters ${model} cannot take: ${problems.join('; ')}; choose another model, or remove them from the blueprint.`,
      );
  }
  const switched: Blueprint = {
    ...bp,
    agent: { ...bp.agent, model },
    stages: bp.stages.map(({ models: _chain, ...s }) => ({ ...s, model })),
  };
  if (bp.agents)
    switched.agents = Object.fromEntries(
      Object.entries(bp.agents).map(([key, agent]) => [key, withModel(agent, model)]),
    );
  return switched;
}
