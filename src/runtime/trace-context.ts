/**
 * Whether a workflow traces its own run (docs/reference/operating.md#traces): when whoever
 * started it traces, so its start carries the trace context in `_tracer-data`, the header
 * `@temporalio/interceptors-opentelemetry` writes on a traced client's starts and a traced
 * workflow's child workflows, continue-as-new, signals and activities. A run started without it
 * (the Web UI, a schedule, `temporal workflow start`, a client that does not trace) costs no
 * span and loads no tracing code. Pure: read from the run's start, which history holds.
 */
export const TRACE_HEADER = '_tracer-data';

export function startedTraced(headers: Readonly<Record<string, unknown>>): boolean {
  return Object.hasOwn(headers, TRACE_HEADER);
}
