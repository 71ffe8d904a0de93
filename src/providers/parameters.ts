/**
 * The fields that carry a stage's model parameters in a request
 * (docs/providers.md#model-parameters). A blueprint with a parameter its
 * providers have no setting for is refused when it loads; a run whose model
 * was switched later (`--model`, a fork) meets the same refusal here.
 */
import { LevError } from '../errors.js';
import { type WireField, wireFields } from '../shapes/parameter-wires.js';
import type { InferenceRequest } from './provider.js';

export function parameterFields(req: InferenceRequest): WireField[] {
  if (!req.parameters) return [];
  const { fields, problems } = wireFields(req.model, req.parameters);
  if (problems.length > 0)
    throw new LevError(
      'model-parameter-unsupported',
      `Stage "${req.meta.stage}" sets model parameters ${req.model} cannot take: ${problems.join('; ')}. Remove them from [stages.${req.meta.stage}.model.parameters] or choose another model.`,
    );
  return fields;
}
