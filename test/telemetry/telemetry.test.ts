import { describe, expect, it } from 'vitest';
import { jsonLine, runAttributes } from '../../src/telemetry/logs.js';
import { tracingWanted } from '../../src/telemetry/tracing.js';

describe('JSON log lines', () => {
  it('hold the time, the level, the message and the metadata, errors and bigints as text', () => {
    const line = jsonLine({
      message: 'Activity failed',
      level: 'WARN',
      timestampNanos: 1_764_806_400_000_000_000n,
      meta: { activityType: 'infer', runId: 'r-1', error: new Error('boom'), size: 5n },
    });
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      time: '2025-12-04T00:00:00.000Z',
      level: 'warn',
      message: 'Activity failed',
      activityType: 'infer',
      runId: 'r-1',
      error: { name: 'Error', message: 'boom' },
      size: '5',
    });
  });

  it("take the run, stage and turn from an activity's input, and nothing else", () => {
    expect(runAttributes([{ runId: 'r-1', stage: 'work', turn: 3, ops: [] }])).toEqual({
      runId: 'r-1',
      stage: 'work',
      turn: 3,
    });
    expect(runAttributes(['text'])).toEqual({});
    expect(runAttributes([])).toEqual({});
  });
});

describe('tracing', () => {
  it('is on when the standard variables name an OTLP endpoint, unless the SDK is disabled', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});
