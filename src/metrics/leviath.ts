/**
 * Leviath's own metrics (docs/reference/operating.md#metrics), emitted where the work happens:
 * in the inference and tool activities, on the worker's metric meter, so they come out of the
 * same Prometheus endpoint as the SDK Core's (`lev worker --metrics`). Outside an activity
 * (unit tests, the simulator) they go nowhere. Counters carry their `_total` suffix themselves;
 * label sets stay small and bounded (provider, model, blueprint, stage, tool, outcome). A model
 * call also names its model and tokens on the active span (`leviath.inference`, src/telemetry/tracing.ts).
 */
import { trace } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { type MetricMeter, type MetricTags, noopMetricMeter } from '@temporalio/common';
import { modelPrices } from '../providers/models.js';
import type { Usage } from '../providers/types.js';
import type { Blueprint } from '../shapes/blueprint.js';

function meter(): MetricMeter {
  try {
    return Context.current().metricMeter;
  } catch {
    return noopMetricMeter;
  }
}

function add(name: string, value: number, tags: MetricTags, unit: string, description: string): void {
  if (!(value > 0)) return;
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
  const tags = { ...m, purpose: call.purpose };
  add('leviath_model_calls_total', 1, tags, 'calls', 'Model calls that answered, by provider, model and purpose.');
  if (call.purpose === 'turn')
    add(
      'leviath_turns_total',
      1,
      { blueprint: bp.agent.name, stage: call.stage },
      'turns',
      'Agent turns (inferences of a stage).',
    );
  add(
    'leviath_tokens_in_total',
    call.usage.promptTokens,
    m,
    'tokens',
    'Prompt tokens the provider counted, cached ones included.',
  );
  add('leviath_tokens_out_total', call.usage.completionTokens, m, 'tokens', 'Completion tokens.');
  add(
    'leviath_tokens_cached_total',
    call.usage.cacheReadTokens,
    m,
    'tokens',
    'Prompt tokens read from the provider cache.',
  );
  const cost = callCostMicroUsd(bp, call.model, call.usage);
  if (cost !== undefined)
    add(
      'leviath_cost_microusd_total',
      cost,
      m,
      'microusd',
      'Estimated cost at list prices, in millionths of a US dollar.',
    );
}

/** A model call that failed, by the provider error's kind (`rate-limit`, `auth`, ...). */
export function recordModelError(model: string, kind: string): void {
  trace.getActiveSpan()?.setAttributes({ 'gen_ai.request.model': model, 'error.type': kind });
  add('leviath_model_errors_total', 1, { ...modelTags(model), kind }, 'errors', 'Model calls that failed, by kind.');
}

/** A tool call's outcome: `ok`, `error` (the tool answered with an error), `denied`, or `failed` (the activity threw). */
export function recordToolCall(tool: string, outcome: 'ok' | 'error' | 'denied' | 'failed'): void {
  add('leviath_tool_calls_total', 1, { tool, outcome }, 'calls', 'Tool calls, by tool and outcome.');
}
