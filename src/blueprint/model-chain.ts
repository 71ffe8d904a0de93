/**
 * A stage's `model`: a `provider:model` string, or the original Leviath's
 * ordered fallback chain `{ models = [{ provider, model }, ...] }`. The
 * runtime uses the first entry whose provider is configured and moves down
 * the chain when a provider becomes unusable (src/runtime/model-fallback.ts).
 */
import type { ModelTable } from '../shapes/model-info.js';
import { providerFacts, providersRanked } from '../shapes/providers.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';
import { reportUnbuiltKeys, UNBUILT_MODEL_KEYS } from './unsupported.js';

/** Keys of the original's model table that pick models, and `parameters` (src/blueprint/stage-parameters.ts); the rest are in UNBUILT_MODEL_KEYS. */
const CHAIN_KEYS = ['models', 'provider', 'model', 'fallbacks', 'parameters'] as const;
const ENTRY_KEYS = ['provider', 'model'] as const;

/** `provider:model` for an entry without a provider: the provider whose table row names it, else OpenAI-compatible. */
export function guessProvider(model: string, table: ModelTable): string {
  for (const provider of providersRanked('guessRank')) if (table[`${provider}:${model}`]) return `${provider}:${model}`;
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
  t.unknownKeys([...CHAIN_KEYS, ...Object.keys(UNBUILT_MODEL_KEYS)], 'unknown-key', 'A model chain');
  reportUnbuiltKeys(t, UNBUILT_MODEL_KEYS, 'Model');
  t.boolean('allow_user_default');
  t.integer('request_timeout_secs', 1);
  t.table_('parameters', 'parameters = { temperature = 0.2 }');
  // The original's order: `models` when it lists any; else the `provider`/`model` shorthand, then `fallbacks`.
  const list = t.raw('models');
  let entries: { entry: unknown; where: KeyPath }[];
  if (t.has('models')) {
    if (!Array.isArray(list) || list.length === 0) {
      findings.add(
        'bad-value',
        'A model chain needs a non-empty list: models = [{ provider = "anthropic", model = "claude-sonnet-5" }, ...].',
        t.at('models'),
      );
      return undefined;
    }
    entries = list.map((entry, i) => ({ entry, where: [...t.at('models'), i] }));
  } else {
    entries = [];
    const provider = t.string('provider');
    const model = t.string('model');
    if (provider !== undefined || model !== undefined) {
      if (model === undefined)
        findings.add(
          'bad-value',
          'This model table names a provider but no model; add model = "...".',
          t.at('provider'),
        );
      else entries.push({ entry: provider === undefined ? { model } : { provider, model }, where: t.at('model') });
    }
    const fallbacks = t.raw('fallbacks');
    if (fallbacks !== undefined && !Array.isArray(fallbacks))
      findings.add(
        'bad-value',
        '`fallbacks` must be a list such as [{ provider = "openai", model = "gpt-5.5" }].',
        t.at('fallbacks'),
      );
    else
      for (const [i, entry] of (fallbacks ?? []).entries()) entries.push({ entry, where: [...t.at('fallbacks'), i] });
    if (entries.length === 0) return undefined;
  }
  const refs: string[] = [];
  entries.forEach(({ entry, where }, i) => {
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
    const prefixed = providerFacts(model.split(':')[0] ?? '') !== undefined;
    const ref = provider ? `${provider}:${model}` : prefixed ? model : guessProvider(model, table);
    if (!refs.includes(ref)) refs.push(ref);
  });
  return refs.length > 0 ? refs : undefined;
}
