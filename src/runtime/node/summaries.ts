/**
 * The compaction activity's work (docs/reference/regions.md#summariser): ask the summarising model to
 * fold entries into one summary within a token limit. Blank output is a
 * failed fold; a too-long summary is cut.
 */

import { fullText, toContent } from '../../blobs/index.js';
import { limitsFor } from '../../blueprint/rate-limits-table.js';
import type { Entry } from '../../context/index.js';
import { recordModelCall, recordModelError } from '../../metrics/leviath.js';
import { encodingFor, lookupModel } from '../../providers/builtin-models.js';
import { getProvider, isProviderError } from '../../providers/index.js';
import type { Usage } from '../../providers/provider.js';
import type { SummaryAnswer } from '../../shapes/engine-requests.js';
import { countTokens, cutMarker, cutToTokens } from '../../tokens/index.js';
import { chooseModel } from './model-choice.js';
import { providerRef } from './model-ref.js';
import { throughGate } from './provider-gate.js';
import type { RunStore } from './run-store.js';

export const DEFAULT_SUMMARY_PROMPT =
  "You compress part of an AI agent's working memory. Rewrite the entries below as one dense summary the agent " +
  'can rely on later. Keep facts, decisions, identifiers, file paths, code that matters, open tasks and errors. ' +
  'Drop repetition and pleasantries. Earlier summaries are included: fold them in rather than summarising them again.';

export interface SummariseInput {
  runId: string;
  blueprintHash: string;
  stage: string;
  region: string;
  entries: Entry[];
  limit: number;
  prompt?: string;
  turn: number;
}

/** The fold's answer for the engine, and what the summarising call cost for the usage ledger. */
export interface SummaryResult {
  answer: SummaryAnswer;
  usage: Usage;
}

/** The summarising call, with a failure counted as the inference's are (`leviath_model_errors_total`). */
async function counted<T>(model: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    recordModelError(model, isProviderError(err) ? err.kind : 'other');
    throw err;
  }
}

export async function summariseEntries(
  store: RunStore,
  input: SummariseInput,
  attempt: number,
): Promise<SummaryResult> {
  const bp = await store.blueprint(input.blueprintHash);
  // Without [compaction] model, the stage's own chain summarises: its first entry with credentials.
  const model = bp.compaction.model ?? chooseModel(bp, input.stage, [], store.config.env);
  const encoding = encodingFor(model, lookupModel(bp.models, model));
  const parts = await Promise.all(
    input.entries.map(async (e) => `${e.key ? `[${e.key}]\n` : ''}${await fullText(store.blobs, e.content)}`),
  );
  const ref = providerRef(bp, model);
  const provider = getProvider(ref, store.config.env, store.scriptProviders(bp));
  // A summary's prompt is its entries: a quarter of their characters is a fair charge for tokens_per_minute.
  const gate = { limits: limitsFor(store.rateLimits(), ref), tokens: Math.ceil(parts.join('').length / 4) };
  const response = await counted(model, () =>
    throughGate(ref, provider, gate, () =>
      provider.infer({
        model: ref,
        system: [{ text: input.prompt ?? bp.compaction.systemPrompt ?? DEFAULT_SUMMARY_PROMPT }],
        messages: [
          {
            role: 'user',
            content: `Region "${input.region}", ${input.entries.length} entries:\n\n${parts.join('\n\n---\n\n')}`,
          },
        ],
        tools: [],
        maxTokens: Math.max(1, input.limit),
        temperature: bp.compaction.temperature,
        meta: { runId: input.runId, stage: input.stage, turn: input.turn, purpose: 'summary', attempt },
      }),
    ),
  );
  recordModelCall(bp, { model, stage: input.stage, purpose: 'summary', usage: response.usage });
  const usage = response.usage;
  const text = response.text.trim();
  if (!text)
    return { answer: { ok: false, error: `the summariser returned blank text for region ${input.region}` }, usage };
  const tokens = countTokens(text, encoding);
  if (tokens <= input.limit)
    return { answer: { ok: true, text: { content: await toContent(store.blobs, text), tokens } }, usage };
  const cut = cutToTokens(text, input.limit, encoding, cutMarker('the summary exceeded its limit'));
  return { answer: { ok: true, text: { content: await toContent(store.blobs, cut.text), tokens: cut.tokens } }, usage };
}
