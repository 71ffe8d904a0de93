/**
 * `[models."provider:model"]` tables, in a blueprint or in the user's
 * config: they add models to the built-in table or change an entry's window,
 * output cap, encoding or inference shape (`local_inference`).
 */
import { ENCODINGS, type Encoding, type ModelInfo } from '../shapes/model-info.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings } from './findings.js';

const MODEL_KEYS = ['context_window', 'max_output_tokens', 'encoding', 'local_inference'] as const;
/** Output cap assumed for a model added without `max_output_tokens`. */
const DEFAULT_MAX_OUTPUT = 4096;

/** Reads `value` (the `[models]` table) on top of `base`; bad entries are reported and skipped. */
export function parseModelTable(
  value: unknown,
  base: Readonly<Record<string, ModelInfo>>,
  findings: Findings,
): Record<string, ModelInfo> {
  const table: Record<string, ModelInfo> = { ...base };
  if (!isTable(value)) {
    findings.add(
      'bad-model',
      `[models] must hold tables such as [models."ollama:llama3.3"] context_window = 131072; it is ${describeValue(value)}.`,
      ['models'],
    );
    return table;
  }
  for (const [ref, entry] of Object.entries(value)) {
    const at = ['models', ref];
    if (!isTable(entry)) {
      findings.add(
        'bad-model',
        `[models."${ref}"] must be a table with context_window = N; it is ${describeValue(entry)}.`,
        at,
      );
      continue;
    }
    const m = new TableReader(entry, at, findings);
    m.unknownKeys(MODEL_KEYS, 'unknown-key', `[models."${ref}"]`);
    const known = base[ref];
    const contextWindow = m.integer('context_window', 1) ?? known?.contextWindow;
    const maxOutputTokens = m.integer('max_output_tokens', 1) ?? known?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT;
    const encoding = m.enumeration<Encoding>('encoding', ENCODINGS, 'bad-encoding') ?? known?.encoding;
    const localInference = m.boolean('local_inference') ?? known?.localInference;
    if (contextWindow === undefined) {
      if (!m.has('context_window'))
        findings.add('bad-model', `Model "${ref}" is not built in, so it needs context_window = <tokens>.`, at);
      continue;
    }
    const info: ModelInfo = { contextWindow, maxOutputTokens };
    if (encoding !== undefined) info.encoding = encoding;
    if (localInference !== undefined) info.localInference = localInference;
    table[ref] = info;
  }
  return table;
}
