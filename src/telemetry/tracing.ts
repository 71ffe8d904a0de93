/**
 * OpenTelemetry traces (docs/reference/operating.md#traces): on when the standard variables name
 * an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, OTLP
 * over HTTP), off with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The exporter
 * reads the rest of the standard variables itself (headers, timeout, compression);
 * `OTEL_SERVICE_NAME` names the service, `leviath` by default. Through
 * `@temporalio/interceptors-opentelemetry`, clients trace the workflows they start, the workflows
 * their own runs from inside the bundle (`workflows/spans.ts`, exported through `workflowSinks`)
 * and workers every activity; `modelSpan` / `toolSpan` add the model and tool calls inside them,
 * so a run is one trace.
 */
import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetryWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';

const TRACER = 'leviath';

export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

let provider: NodeTracerProvider | undefined;
/** Where the workflows' spans join the process's own: the provider's processor, under its resource. */
let workflowExporter: InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }> | undefined;

/** Starts the process's tracer provider once, when tracing is wanted; true when it runs. */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (provider) return true;
  if (!tracingWanted(env)) return false;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || TRACER });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  workflowExporter = { exporter: makeWorkflowExporter(processor, resource) };
  return true;
}

/**
 * The `exporter` sink the workflow bundle's span interceptors send to: into the process's
 * exporter when tracing runs, else nowhere. Every worker that runs the bundle registers it, the
 * replaying ones included, since a call to a sink a worker lacks is logged as an error.
 */
export function workflowSinks(): InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }> {
  return workflowExporter ?? { exporter: { export: { fn: () => {} } } };
}

/** Sends the spans still buffered; a process calls it before it exits. */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush();
}

/** The worker's activity interceptors, when tracing runs: a span per activity, its parent from the workflow's headers. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!provider) return [];
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}

/** A client's workflow interceptors, when tracing runs: starting a run, its updates and queries become spans. */
export function tracingClientInterceptors(): { workflow?: OpenTelemetryWorkflowClientInterceptor[] } {
  return provider ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {};
}

async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * An inference as a span: `leviath.inference`, with the run, the stage, the turn and the purpose;
 * the model that answered and its tokens are added by `recordModelCall` (src/metrics/leviath.ts).
 */
export function modelSpan<T>(
  attrs: { runId: string; stage: string; turn: number; purpose: string },
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    'leviath.inference',
    {
      'leviath.run_id': attrs.runId,
      'leviath.stage': attrs.stage,
      'leviath.turn': attrs.turn,
      'leviath.purpose': attrs.purpose,
    },
    () => work(),
  );
}

/** A tool call as a span: `leviath.tool <name>`, with its outcome. */
export function toolSpan<T extends { isError: boolean; denied: boolean }>(
  attrs: { tool: string; runId: string; stage: string },
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `leviath.tool ${attrs.tool}`,
    { 'leviath.tool': attrs.tool, 'leviath.run_id': attrs.runId, 'leviath.stage': attrs.stage },
    async (span) => {
      const out = await work();
      span.setAttribute('leviath.outcome', out.denied ? 'denied' : out.isError ? 'error' : 'ok');
      return out;
    },
  );
}
