/**
 * A stage's model parameters against the provider table: which ones a
 * provider has no place for (refused when the blueprint loads, and again by
 * the client should a run switch models), and the fields of its request that
 * carry the rest (docs/providers.md#model-parameters).
 */
import type { ModelParameter, ModelParameters } from './model-parameters.js';
import { providerFacts } from './providers.js';

/** One field of a request body: a dotted path and its value. */
export interface WireField {
  path: string;
  value: unknown;
}

function prefixOf(ref: string): string {
  const colon = ref.indexOf(':');
  return colon === -1 ? ref : ref.slice(0, colon);
}

/**
 * The fields that carry `params` in a request of the model `ref`
 * (`provider:model`), or the problems: one sentence per parameter the
 * provider has no place for. `max_tokens` is no field: it caps the request's
 * reply limit, which every provider sends.
 */
export function wireFields(ref: string, params: ModelParameters): { fields: WireField[]; problems: string[] } {
  const prefix = prefixOf(ref);
  const facts = providerFacts(prefix);
  const fields: WireField[] = [];
  const problems: string[] = [];
  if (!facts && ref.includes(':')) {
    // A script provider (docs/reference/script-providers.md#the-script-contract): its request carries these two alone.
    for (const [name, value] of Object.entries(params))
      if (value !== undefined && name !== 'max_tokens' && name !== 'temperature')
        problems.push(
          `${prefix} is a script provider, whose request carries only temperature and max_tokens, not \`${name}\``,
        );
    return { fields, problems };
  }
  if (!facts || facts.wire === 'scripted') return { fields, problems };
  for (const [name, value] of Object.entries(params) as [ModelParameter, unknown][]) {
    if (name === 'max_tokens' || value === undefined) continue;
    const wire = facts.parameters[name];
    if (!wire) {
      problems.push(`${prefix} has no setting \`${name}\``);
      continue;
    }
    if (!wire.values) {
      fields.push({ path: wire.path, value });
      continue;
    }
    const sent = Object.hasOwn(wire.values, String(value)) ? wire.values[String(value)] : undefined;
    if (sent === undefined)
      problems.push(
        `${prefix} takes \`${name}\` ${Object.keys(wire.values)
          .map((v) => (name === 'think' ? v : `"${v}"`))
          .join(', ')}, not ${JSON.stringify(value)}`,
      );
    else fields.push({ path: wire.path, value: sent });
  }
  const paths = fields.map((f) => f.path);
  const twice = paths.find((p, i) => paths.indexOf(p) !== i);
  if (twice !== undefined) problems.push(`${prefix} sends think and reasoning_effort in one field (${twice}); set one`);
  return { fields, problems };
}

/** Sets each field in `body`, making the tables on its path. */
export function setWireFields(body: Record<string, unknown>, fields: readonly WireField[]): void {
  for (const { path, value } of fields) {
    const keys = path.split('.');
    let at = body;
    for (const key of keys.slice(0, -1)) {
      const next = at[key];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    at[keys.at(-1) as string] = value;
  }
}
