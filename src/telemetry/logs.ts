/**
 * `lev worker --log-format json` (docs/reference/operating.md#json-logs): one JSON object a line
 * on stderr, `time`, `level`, `message` and whatever the SDK attached (workflow and activity
 * ids, types, task queue), and for every activity of a run Leviath's own `runId`, `stage` and
 * `turn`, read from the activity's input by `runAttributes`.
 */
import type { ActivityInboundCallsInterceptor, ActivityOutboundCallsInterceptor, LogEntry } from '@temporalio/worker';

export type LogFormat = 'text' | 'json';

/** A log entry as one JSON line; values JSON cannot hold (bigints, errors) are written as text. */
export function jsonLine(entry: LogEntry): string {
  const meta = entry.meta ?? {};
  const fields: Record<string, unknown> = {
    time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    level: entry.level.toLowerCase(),
    message: entry.message,
  };
  for (const [k, v] of Object.entries(meta)) {
    if (k in fields) continue;
    fields[k] = v instanceof Error ? { name: v.name, message: v.message } : typeof v === 'bigint' ? String(v) : v;
  }
  return `${JSON.stringify(fields)}\n`;
}

/** The run, stage and turn an activity's input names (InferInput, ToolInput, SeedRequest, ...). */
export function runAttributes(args: readonly unknown[]): Record<string, unknown> {
  const input = args[0];
  if (!input || typeof input !== 'object') return {};
  const { runId, stage, turn } = input as { runId?: unknown; stage?: unknown; turn?: unknown };
  return {
    ...(typeof runId === 'string' ? { runId } : {}),
    ...(typeof stage === 'string' ? { stage } : {}),
    ...(typeof turn === 'number' ? { turn } : {}),
  };
}

/** The activity interceptor that puts `runAttributes` on every log line of the activity. */
export function runLogInterceptor(): {
  inbound: ActivityInboundCallsInterceptor;
  outbound: ActivityOutboundCallsInterceptor;
} {
  let attributes: Record<string, unknown> = {};
  return {
    inbound: {
      execute(input, next) {
        attributes = runAttributes(input.args);
        return next(input);
      },
    },
    outbound: {
      getLogAttributes(input, next) {
        return next({ ...input, ...attributes });
      },
    },
  };
}
