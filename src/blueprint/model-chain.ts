/**
 * A stage's `model`: a `provider:model` string, or the original Leviath's
 * ordered fallback chain `{ models = [{ provider, model }, ...] }`. The
 * runtime uses the first entry whose provider is configured and moves down
 * the chain when a provider becomes unusable (src/runtime/model-fallback.ts).
 */
import type { ModelTable } from '../shapes/models.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';

const CHAIN_KEYS = ['models'] as const;
/** Keys of the original's model table that tune requests; not built here. */
const UNBUILT_CHAIN_KEYS = ['params', 'request_timeout_secs', 'allow_user_default'] as const;
const ENTRY_KEYS = ['provider', 'model'] as const;
/** Providers tried, in order, for an entry that names a model without its provider. */
const GUESS_ORDER = ['anthropic', 'openai', 'ollama', 'openrouter'] as const;
const KNOWN_PREFIXES = ['anthropic', 'openai', 'ollama', 'openrouter', 'vllm', 'lmstudio', 'scripted'];

/** `provider:model` for an entry without a provider: the provider whose table row names it, else OpenAI-compatible. */
export function guessProvider(model: string, table: ModelTable): string {
  for (const provider of GUESS_ORDER) if (table[`${provider}:${model}`]) return `${provider}:${model}`;
  if (/^claude-/.test(model)) return `anthropic:${model}`;
  return `openai:${model}`;
}

/** The ordered refs of a stage's `model` value; undefined when nothing usable was written (reported). */
export function parseModelValue(
  value: unknown,
  at: KeyPath,
  findings: Findings,
  table: ModelTable,
): string[] | undefined {
  if (typeof value === 'string') {
    if (value.trim() !== '') return [value.trim()];
    findings.add('bad-value', 'This model is empty; write model = "provider:model" or remove the key.', at);
    return undefined;
  }
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `\`model\` must be "provider:model" or { models = [{ provider = "anthropic", model = "claude-sonnet-5" }] }, not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys([...CHAIN_KEYS, ...UNBUILT_CHAIN_KEYS], 'unknown-key', 'A model chain');
  for (const key of UNBUILT_CHAIN_KEYS) {
    if (t.has(key))
      findings.add(
        'unsupported-feature',
        `\`${key}\` of a model chain is not built here, so it is not applied to requests; remove it to silence this warning.`,
        t.at(key),
      );
  }
  const list = t.raw('models');
  if (!Array.isArray(list) || list.length === 0) {
    findings.add(
      'bad-value',
      'A model chain needs a non-empty list: models = [{ provider = "anthropic", model = "claude-sonnet-5" }, ...].',
      t.at('models'),
    );
    return undefined;
  }
  const refs: string[] = [];
  list.forEach((entry, i) => {
    const where = [...t.at('models'), i];
    if (!isTable(entry)) {
      findings.add(
        'bad-value',
        `Entry ${i + 1} of the model chain must be { provider = "...", model = "..." }, not ${describeValue(entry)}.`,
        where,
      );
      return;
    }
    const e = new TableReader(entry, where, findings);
    e.unknownKeys(ENTRY_KEYS, 'unknown-key', `Entry ${i + 1} of the model chain`);
    const provider = e.string('provider')?.trim();
    const model = e.string('model')?.trim();
    if (!model) {
      if (!e.has('model'))
        findings.add('bad-value', `Entry ${i + 1} of the model chain names no model; add model = "...".`, where);
      return;
    }
    const prefixed = KNOWN_PREFIXES.includes(model.split(':')[0] ?? '');
    const ref = provider ? `${provider}:${model}` : prefixed ? model : guessProvider(model, table);
    if (!refs.includes(ref)) refs.push(ref);
  });
  return refs.length > 0 ? refs : undefined;
}
