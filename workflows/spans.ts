/**
 * The workflow bundle's OpenTelemetry interceptors (docs/reference/operating.md#traces), the
 * ones `@temporalio/interceptors-opentelemetry` ships: a span for the workflow's run, the child
 * of the span that started it, with a span for each activity, child workflow, signal and update
 * inside it, whose context travels in the headers to the activity (where `leviath.inference`
 * and `leviath.tool` open beneath it) and to the child. Spans leave the sandbox through the
 * worker's `exporter` sink (`workflowSinks`, src/telemetry/tracing.ts).
 *
 * Only a run whose starter traces is traced (`startedTraced`), and only one that starts with
 * `WORKFLOW_SPANS`: the package's interceptors add awaits around the calls they wrap, which can
 * move a continuation by a microtask, so a run recorded without them must pass every call
 * straight through as it ran. The package, with OpenTelemetry's SDK, is loaded only by a
 * traced run, since evaluating it costs each workflow milliseconds. Queries are never traced:
 * `lev run` and the Web UI ask for progress many times a minute.
 */
import type {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import {
  patched,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { startedTraced } from '../src/runtime/index.js';
import { WORKFLOW_SPANS } from '../src/runtime/patches.js';

type Otel = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');

interface Tracing {
  inbound: OpenTelemetryInboundInterceptor;
  outbound: OpenTelemetryOutboundInterceptor;
  internals: OpenTelemetryInternalsInterceptor;
}

export const interceptors = (): WorkflowInterceptors => {
  let on: Tracing | undefined;
  const traceIn: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      // Asked first thing in the run, before any other marker, and only by a traced run.
      if (startedTraced(input.headers) && patched(WORKFLOW_SPANS)) {
        // The bundler turns this into a lazy load of a module the bundle holds.
        const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as Otel;
        on = {
          inbound: new otel.OpenTelemetryInboundInterceptor(),
          outbound: new otel.OpenTelemetryOutboundInterceptor(),
          internals: new otel.OpenTelemetryInternalsInterceptor(),
        };
      }
      return on ? on.inbound.execute(input, next) : next(input);
    },
    handleSignal: (input, next) => (on ? on.inbound.handleSignal(input, next) : next(input)),
    handleUpdate: (input, next) => (on ? on.inbound.handleUpdate(input, next) : next(input)),
  };
  const traceOut: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (on ? on.outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (on ? on.outbound.scheduleLocalActivity(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) =>
      on ? on.outbound.startChildWorkflowExecution(input, next) : next(input),
    continueAsNew: (input, next) => (on ? on.outbound.continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next) => (on ? on.outbound.signalWorkflow(input, next) : next(input)),
    getLogAttributes: (input, next) => (on ? on.outbound.getLogAttributes(input, next) : next(input)),
  };
  const internals: WorkflowInternalsInterceptor = {
    dispose: (input, next) => (on ? on.internals.dispose(input, next) : next(input)),
  };
  return { inbound: [traceIn], outbound: [traceOut], internals: [internals] };
};
