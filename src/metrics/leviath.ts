/**
 * Leviath's own metrics (docs/reference/operating.md#metrics), emitted where the work happens:
 * in the inference and tool activities, on the worker's metric meter, so they come out of the
 * same Prometheus endpoint as the SDK Core's (`lev worker --metrics`); the workflows count what
 * they decide themselves (`workflows/meter.ts`), from the same table of names
 * (`src/runtime/fleet-metrics.ts`). Outside an activity (unit tests, the simulator) they go
 * nowhere. Counters carry their `_total` suffix themselves;
 * label sets stay small and bounded (provider, model, blueprint, stage, tool, outcome). A model
 * call also names its model and tokens on the active span (`leviath.inference`, src/telemetry/tracing.ts).
 */
import { trace } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { type MetricMeter, type MetricTags, noopMetricMeter } from '@temporalio/common';
import { modelPrices } from '../providers/builtin-models.js';
import type { Usage } from '../providers/provider.js';
import { LEVIATH_METRICS, type MetricName } from '../runtime/fleet-metrics.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';

function meter(): MetricMeter {
  try {
    return Context.current().metricMeter;
  } catch {
    return noopMetricMeter;
  }
}

function add(metric: MetricName, value: number, tags: MetricTags): void {
  if (!(value > 0)) return;
  const { name, unit, description } = LEVIATH_METRICS[metric];
  meter().createCounter(name, unit, description).add(Math.round(value), tags);
}

/** `provider` and `model` of a `provider:model` reference. */
export function modelTags(model: string): { provider: string; model: string } {
  const i = model.indexOf(':');
  return i < 0 ? { provider: 'unknown', model } : { provider: model.slice(0, i), model: model.slice(i + 1) };
}

/** The estimated cost of one call in millionths of a dollar, or undefined when the model has no prices. */
export function callCostMicroUsd(bp: Pick<Blueprint, 'models'>, model: string, usage: Usage): number | undefined {
  const prices = modelPrices(bp.models, model);
  if (!prices) return undefined;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.promptTokens - usage.cacheReadTokens - cacheWrite);
  return (
    uncached * prices.input +
    usage.cacheReadTokens * prices.cachedRead +
    cacheWrite * prices.cacheWrite +
    usage.completionTokens * prices.output
  );
}

/** One model call that answered: a turn when it was the stage's turn, its tokens, its cost. */
export function recordModelCall(
  bp: Blueprint,
  call: { model: string; stage: string; purpose: string; usage: Usage },
): void {
  const m = modelTags(call.model);
  trace.getActiveSpan()?.setAttributes({
    'gen_ai.system': m.provider,
    'gen_ai.request.model': call.model,
    'gen_ai.usage.input_tokens': call.usage.promptTokens,
    'gen_ai.usage.output_tokens': call.usage.completionTokens,
  });
  add('modelCalls', 1, { ...m, purpose: call.purpose });
  if (call.purpose === 'turn') add('turns', 1, { blueprint: bp.agent.name, stage: call.stage });
  add('tokensIn', call.usage.promptTokens, m);
  add('tokensOut', call.usage.completionTokens, m);
  add('tokensCached', call.usage.cacheReadTokens, m);
  const cost = callCostMicroUsd(bp, call.model, call.usage);
  if (cost !== undefined) add('cost', cost, m);
}

/** A model call that failed, by the provider error's kind (`rate-limit`, `auth`, ...). */
export function recordModelError(model: string, kind: string): void {
  trace.getActiveSpan()?.setAttributes({ 'gen_ai.request.model': model, 'error.type': kind });
  add('modelErrors', 1, { ...modelTags(model), kind });
}

/** A tool call's outcome: `ok`, `error` (the tool answered with an error), `denied`, or `failed` (the activity threw). */
export function recordToolCall(tool: string, outcome: 'ok' | 'error' | 'denied' | 'failed'): void {
  add('toolCalls', 1, { tool, outcome });
}
