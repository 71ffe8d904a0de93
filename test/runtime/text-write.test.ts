/**
 * The one write of a text the workflow puts into the region set
 * (`textWrite`, docs/architecture.md#event-sourcing): a person's message, a
 * nudge, a reminder, a runtime note and seed context all record the same
 * operation, byte for byte what earlier versions recorded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { textWrite, USER_TURN } from '../../src/runtime/ops.js';

const OPERATORS = join(import.meta.dirname, '..', 'histories', 'v0.3.0', 'operators');

/** Every recorded operation of the attended run's visit: the `ops` of each inference's input, as JSON text. */
function recordedOps(): string[] {
  const file = readdirSync(OPERATORS).find((f) => /\.1\.work--/.test(f));
  if (!file) throw new Error(`no work visit in ${OPERATORS}`);
  const history = temporal.api.history.v1.History.decode(gunzipSync(readFileSync(join(OPERATORS, file))));
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'infer') return [];
    const input = JSON.parse(Buffer.from(scheduled.input?.payloads?.[0]?.data ?? []).toString('utf8'));
    return (input.ops as { call: unknown }[]).map((op) => JSON.stringify(op.call));
  });
}

describe('the one write of a text', () => {
  it("records a person's message as v0.3.0 recorded it: a user turn as it came", () => {
    const message = 'Say which branch you used.';
    const written = JSON.stringify(textWrite(USER_TURN, message, 6, false));
    expect(recordedOps()).toContain(written);
    expect(written).toBe(
      '{"kind":"write","region":"conversation","entry":{"content":"Say which branch you used.","tokens":6,"kind":"user"}}',
    );
  });

  it("marks the runtime's own words, in a region or the conversation, after the entry's kind", () => {
    expect(JSON.stringify(textWrite({ region: 'error_report', kind: 'text' }, 'Stage "s" failed.', 5, true))).toBe(
      '{"kind":"write","region":"error_report","entry":{"content":"Stage \\"s\\" failed.","tokens":5,"kind":"text","runtime":true}}',
    );
    expect(textWrite(USER_TURN, 'Give your final answer now.', 6, true).entry).toEqual({
      content: 'Give your final answer now.',
      tokens: 6,
      kind: 'user',
      runtime: true,
    });
  });
});
