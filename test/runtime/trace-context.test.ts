/** Which runs trace themselves from inside the workflow (docs/reference/operating.md#traces). */
import { describe, expect, it } from 'vitest';
import { startedTraced, TRACE_HEADER } from '../../src/runtime/trace-context.js';

describe('a run traces itself', () => {
  it('when its start carries the trace context a traced client or workflow writes', () => {
    expect(startedTraced({ [TRACE_HEADER]: { data: new Uint8Array() } })).toBe(true);
  });

  it('not when it was started without one', () => {
    expect(startedTraced({})).toBe(false);
    expect(startedTraced({ other: {} })).toBe(false);
  });
});
