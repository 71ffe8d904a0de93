/**
 * Emits what the workflows' decisions counted (`src/runtime/fleet-metrics.ts`) on the worker's
 * meter, beside the activities' `leviath_*` metrics (docs/reference/operating.md#leviaths-metrics).
 * The SDK's workflow meter sends nothing while a workflow replays and records no command, so a
 * count is made once per live decision and history is the same with or without it.
 */
import { metricMeter } from '@temporalio/workflow';
import { LEVIATH_METRICS, type MetricAdd } from '../src/runtime/index.js';

export function emit(adds: readonly (MetricAdd | undefined)[]): void {
  for (const add of adds) {
    if (!add || !(add.value > 0)) continue;
    const { name, unit, description } = LEVIATH_METRICS[add.metric];
    metricMeter.createCounter(name, unit, description).add(Math.round(add.value), add.tags);
  }
}
