/**
 * Invariant: an events file whose lines all have a known op always runs to
 * completion (exit 0) with one result per event, and every failed event
 * says why with a `[code]` prefix; nothing the events say crashes the engine.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_OPS } from '../../src/cli/simulate/events.js';
import { simulate } from '../../src/cli/simulate/index.js';
import { blueprintDir, eventsText } from '../fixtures/simulate/harness.js';

const dir = blueprintDir(`
[agent]
name = "fuzz"
entry_stage = "a"
[context.regions]
notes = { kind = "temporary", max_tokens = 300 }
files = { kind = "hashmap", max_tokens = 300 }
todos = { kind = "checklist", max_tokens = 300 }
code = { kind = "compacting", max_tokens = 400 }
[stages.a.tool_routing]
default_region = "files"
max_result_tokens = 200
[stages.a.transitions.b]
transform = "compact"
gate = { require_no_open_items = "todos", max_attempts = 1 }
[stages.b]
`);

const value = fc.oneof(
  fc.constantFrom('notes', 'files', 'todos', 'code', 'nope', 'conversation', 'a', 'b', 't1', 't2'),
  fc.integer({ min: -2, max: 5 }),
  fc.string({ maxLength: 20 }),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.record({ id: fc.constantFrom('t1', 't2'), name: fc.constantFrom('grep', 'read_file', 'context_list') }), {
    maxLength: 2,
  }),
);

const event = fc.record(
  {
    op: fc.constantFrom(...EVENT_OPS),
    region: value,
    content: value,
    key: value,
    index: value,
    oldest: value,
    id: value,
    item: value,
    note: value,
    stage: value,
    to: value,
    tool_call_id: value,
    tool_name: value,
    is_error: value,
    tool_calls: value,
    prompt_tokens: value,
    tokens: fc.integer({ min: 0, max: 500 }),
  },
  { requiredKeys: ['op'] },
);

describe('simulate never fails on what events say', () => {
  it('runs any sequence of known ops to completion', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        const result = simulate(dir, eventsText(events), { window: 20_000 });
        expect(result.exitCode).toBe(0);
        expect(result.json?.results).toHaveLength(events.length);
        events.forEach((e, i) => {
          const r = result.json?.results[i];
          // Failures carry a code, except an erroring tool's routed result and a gate's nudge.
          if (r && !r.ok && e.op !== 'gate' && !(e.op === 'tool_result' && e.is_error === true))
            expect(r.text).toMatch(/^\[[a-z-]+\] /);
        });
      }),
      { numRuns: 300 },
    );
  });
});
