/**
 * `[stages.<name>.model.parameters]` (docs/providers.md#model-parameters):
 * each parameter checked against the value it takes, then against every
 * provider of the stage's model chain, so a parameter one of them has no
 * setting for is refused here rather than dropped on the way to the model.
 */
import {
  EFFORTS,
  MODEL_PARAMETERS,
  type ModelParameter,
  type ModelParameters,
  PARAMETER_ALIASES,
} from '../shapes/model-parameters.js';
import { wireFields } from '../shapes/parameter-wires.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, didYouMean, type Findings, type KeyPath } from './findings.js';

const NAMES = Object.keys(MODEL_PARAMETERS) as ModelParameter[];

/** The parameters of a stage's model table `model`; undefined when it sets none (or none that parse, reported). */
export function parseModelParameters(model: unknown, at: KeyPath, findings: Findings): ModelParameters | undefined {
  if (!isTable(model) || !isTable(model.parameters)) return undefined;
  const t = new TableReader(model.parameters, [...at, 'parameters'], findings);
  const params: ModelParameters = {};
  for (const written of Object.keys(t.table)) {
    const name = Object.hasOwn(PARAMETER_ALIASES, written) ? PARAMETER_ALIASES[written] : (written as ModelParameter);
    if (!name || !NAMES.includes(name)) {
      findings.add(
        'model-parameter-unsupported',
        `Model parameter \`${written}\` is not one this runtime passes to a provider${didYouMean(written, NAMES)}; the parameters are ${NAMES.join(', ')}. Remove it, or set the closest of them.`,
        t.at(written),
      );
      continue;
    }
    const value = read(t, written, name);
    if (value !== undefined) (params as Record<string, unknown>)[name] = value;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

function read(t: TableReader, key: string, name: ModelParameter): unknown {
  switch (name) {
    case 'temperature':
      return t.number(key, 0, 2);
    case 'top_p':
      return t.number(key, 0, 1);
    case 'max_tokens':
      return t.integer(key, 1);
    case 'think':
      return t.boolean(key);
    case 'reasoning_effort':
      return t.enumeration(key, EFFORTS, 'bad-value');
    case 'stop': {
      const raw = t.raw(key);
      if (typeof raw === 'string') return [raw];
      if (Array.isArray(raw) && raw.length > 0 && raw.every((s) => typeof s === 'string')) return [...raw];
      t.findings.add(
        'bad-value',
        `Model parameter \`${key}\` must be ${MODEL_PARAMETERS.stop.takes}, such as stop = ["END"]; it is ${describeValue(raw)}.`,
        t.at(key),
      );
      return undefined;
    }
  }
}

/** Refuses each parameter a provider of `chain` has no setting for, naming the provider. */
export function checkParameterProviders(
  chain: readonly string[],
  params: ModelParameters,
  at: KeyPath,
  findings: Findings,
): void {
  const problems = [...new Set(chain.flatMap((ref) => wireFields(ref, params).problems))];
  if (problems.length === 0) return;
  findings.add(
    'model-parameter-unsupported',
    `The model parameters reach a provider that cannot take them: ${problems.join('; ')}. Remove them, or drop that provider from the chain; the original Leviath passed them on and the provider refused or ignored them.`,
    [...at, 'parameters'],
  );
}
