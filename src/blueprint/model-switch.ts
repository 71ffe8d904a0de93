/**
 * One model for a whole blueprint: `lev run --model` and `lev fork --model`
 * (docs/reference/cluster-runs.md#fork) switch every stage, the agent
 * default and the catalog's agents to it, dropping the stages' model chains.
 */
import type { Blueprint } from '../shapes/frozen-blueprint.js';

/** Every stage (and the agent default) switched to one model, the run's sub-agents too. */
export function withModel(bp: Blueprint, model: string): Blueprint {
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
