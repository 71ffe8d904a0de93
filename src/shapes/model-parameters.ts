/**
 * The model parameters a stage may set (`[stages.<name>.model.parameters]`,
 * docs/providers.md#model-parameters): their names, the values each takes and
 * the neutral form a loaded blueprint carries. Where each provider puts them
 * in its request is the `parameters` entry of its record in the provider
 * table (src/shapes/providers.ts); a parameter a provider has no place for is
 * refused when the blueprint loads.
 */

/** Reasoning effort, weakest first: the union of what the providers take; each provider's record says which it takes. */
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

/** A stage's parameters as the blueprint carries them, each in the one form the provider clients read. */
export interface ModelParameters {
  temperature?: number;
  top_p?: number;
  /** Caps the reply limit of every request of the stage (docs/reference/regions.md#calibration-gap). */
  max_tokens?: number;
  /** A single string is read as a one-entry list. */
  stop?: string[];
  reasoning_effort?: Effort;
  /** Ollama's switch for a thinking model, as in the original Leviath. */
  think?: boolean;
}

export type ModelParameter = keyof ModelParameters;

/** How a blueprint writes each parameter: the value it takes, as a sentence for messages and docs. */
export const MODEL_PARAMETERS: Readonly<Record<ModelParameter, { takes: string }>> = {
  temperature: { takes: 'a number from 0 to 2' },
  top_p: { takes: 'a number from 0 to 1' },
  max_tokens: { takes: 'a positive integer' },
  stop: { takes: 'a string or a list of strings' },
  reasoning_effort: { takes: `one of ${EFFORTS.map((e) => `"${e}"`).join(', ')}` },
  think: { takes: 'true or false' },
};

/** The original Leviath's other names for a parameter. */
export const PARAMETER_ALIASES: Readonly<Record<string, ModelParameter>> = { max_output_tokens: 'max_tokens' };

/**
 * Where one provider puts one parameter: a dotted path into the request body
 * it builds, and, for a parameter of a few values, the value it sends for each
 * one it takes (keyed by the value as written, `String(value)`). A value
 * missing from `values` is one the provider does not take.
 */
export interface ParameterWire {
  path: string;
  values?: Readonly<Record<string, string>>;
}

/** A provider's places for the parameters; `max_tokens` needs none, since every request carries a reply limit. */
export type ParameterWires = Readonly<Partial<Record<Exclude<ModelParameter, 'max_tokens'>, ParameterWire>>>;

/** `values` for an effort the provider spells as written. */
export function sameEfforts(...efforts: Effort[]): Record<string, string> {
  return Object.fromEntries(efforts.map((e) => [e, e]));
}
