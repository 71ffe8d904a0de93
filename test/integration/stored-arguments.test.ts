/**
 * A model that writes long text into `context_append` (docs/reference/regions.md#stored-arguments):
 * the text lives in the blob store, the workflow history carries references, and a turn that
 * only calls context tools is one workflow task and one activity, whatever the text's size.
 */
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

const { EventType } = proto.temporal.api.enums.v1;
const TURNS = 5;

function text(kb: number, turn: number): string {
  let out = `zebra-note ${turn}:`;
  for (let i = 0; out.length < kb * 1024; i++) out += ` quokka${i}`;
  return out.slice(0, kb * 1024);
}

describe('long context_append arguments', () => {
  const env = useRuntime();

  async function run(kb: number) {
    const turns = Array.from({ length: TURNS }, (_, i) => ({
      text: `Turn ${i + 1}.`,
      tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: text(kb, i) } }],
    }));
    const model = scriptedModel({
      turns: [
        ...turns,
        {
          text: 'Reading back.',
          tool_calls: [{ name: 'context_read', arguments: { region: 'notes' } }],
        },
        { text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "long-notes"
model = "${model}"
[models."${model}"]
context_window = 400000
[context.regions]
task  = { kind = "pinned", max_tokens = 500 }
notes = { kind = "temporary", max_tokens = 200000 }
conversation = { kind = "sliding_window", max_tokens = 150000, max_items = 40 }
[stages.main]
available_tools = ["context_append", "context_read"]
max_iterations = 20
`);
    const { result, handle } = await runAgent(env.rt, bp, { task: 'keep notes' });
    expect(result.status).toBe('completed');
    const history = await env.conn.client.workflow.getHandle(`${handle.workflowId}.1.main`).fetchHistory();
    return { result, events: history.events ?? [] };
  }

  it('keeps no inline copy of the text in history, and a turn costs the same for 4 KB as for 40 KB', async () => {
    const small = await run(4);
    const large = await run(40);
    for (const { events } of [small, large]) {
      const raw = Buffer.from(proto.temporal.api.history.v1.History.encode({ events }).finish()).toString('latin1');
      expect(raw).not.toContain('quokka500');
      // Each context-tool turn: one infer activity and no countText or saveSnapshot besides.
      const scheduled = events
        .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
        .filter((n): n is string => n !== undefined);
      expect(scheduled.filter((n) => n !== 'infer' && n !== 'joinText')).toEqual([]);
      const localCounts = events.filter(
        (e) =>
          e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED &&
          e.markerRecordedEventAttributes?.markerName !== 'core_patch',
      );
      expect(localCounts).toEqual([]);
    }
    const bytes = (events: typeof small.events) =>
      events.reduce((sum, e) => sum + proto.temporal.api.history.v1.HistoryEvent.encode(e).finish().length, 0);
    // Ten times the text, about the same history: only the references' sizes and counts differ.
    expect(Math.abs(bytes(large.events) - bytes(small.events))).toBeLessThan(2048);
  });

  it('answers context_read of stored entries with their full text', async () => {
    const { result } = await run(4);
    const notes = result.regions.find((r) => r.name === 'notes');
    expect(notes?.entries).toBe(TURNS);
    const conversation = result.regions.find((r) => r.name === 'conversation');
    // The calls carry every note once, and the read's answer holds them all again in full (a preview
    // would cost a few dozen tokens each): the conversation pays for the notes twice over.
    expect(conversation?.tokens ?? 0).toBeGreaterThan(1.9 * (notes?.tokens ?? 0));
  });
});
