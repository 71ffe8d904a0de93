/**
 * Which encoding counts a model's text (docs/reference/regions.md#encodings): the table's `encoding`, else by model
 * family.
 */
import { type Encoding, encodingFor, lookupModel, type ModelTable } from '../providers/models.js';

export function modelEncoding(models: ModelTable, ref: string): Encoding {
  return encodingFor(ref, lookupModel(models, ref));
}
