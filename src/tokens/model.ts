/**
 * Which encoding counts a model's text (docs/reference/regions.md#encodings): the table's `encoding`, else by model
 * family.
 */
import { encodingFor, lookupModel } from '../providers/builtin-models.js';
import type { Encoding, ModelTable } from '../shapes/model-info.js';

export function modelEncoding(models: ModelTable, ref: string): Encoding {
  return encodingFor(ref, lookupModel(models, ref));
}
