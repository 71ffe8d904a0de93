/**
 * A run's event stream (docs/reference/events.md) read through `subscribeRun`
 * against the real dev server: followed live across continue-as-new of the run
 * and of its visits, its offsets come in order without a gap and end with
 * `run-ended`; read again once the run ended, it holds the same events; and
 * the model's text arrives on the token channel before its turn ends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openGate } from '../../src/providers/index.js';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from '../../src/runtime/types.js';
import type { RunEvent, StreamItem, TextDelta } from '../../src/shapes/run-events.js';
import { subscribeRun } from '../../src/stream/subscribe.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { runOutcome, startRun } from '../../src/worker/run-client.js';
import { lev } from '../cli/lev-in-process.js';
import { temporalAddress } from './helpers.js';
import { startLev } from './lev-process.js';
import { scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

async function collect(items: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const out: StreamItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const durable = (items: StreamItem[]) => items.filter((i): i is RunEvent => i.kind !== 'text');

describe("a run's event stream", () => {
  const env = useRuntime();

  async function start(toml: string, options: Partial<RunOptions>) {
    return startRun(
      env.rt.client,
      {
        blueprint: writeBlueprint(toml),
        task: 'Keep working.',
        caller: {},
        workdir: tempDir('events'),
        options: { ...DEFAULT_RUN_OPTIONS, ...options },
      },
      { taskQueue: env.rt.taskQueue },
    );
  }

  it('comes in offset order without a gap across continue-as-new of the run and of its visits', async () => {
    const turns = 10;
    const model = scriptedModel({
      latency_ms: 10,
      turns: [
        ...Array.from({ length: turns }, (_, i) => ({
          stage: 'main',
          text: `Pass ${i + 1}.`,
          tool_calls: [{ name: 'current_time', arguments: {} }],
        })),
        { stage: 'main', text: 'All passes done.' },
        { stage: 'wrap', text: 'Wrapped.' },
      ],
    });
    const toml = `[agent]\nname = "streamed"\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = 100\n[stages.main.transitions.wrap]\n[stages.wrap]\nmodel = "${model}"\n`;
    // The visit goes on as new every 3 turns, the run past 40 events of history.
    const handle = await start(toml, { runHistoryEvents: 40, turnsPerRun: 3, progressReportMs: 0 });
    const live = durable(await collect(subscribeRun(env.rt.client, handle.workflowId, { from: 0 })));
    await handle.result();

    expect(live.map((e) => e.offset)).toEqual(live.map((_, i) => i));
    expect(live.every((e) => e.v === 1)).toBe(true);
    expect(live.at(-1)).toMatchObject({ kind: 'run-ended', status: 'completed' });
    const kinds = live.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'turn-ended')).toHaveLength(turns + 2);
    expect(kinds.filter((k) => k === 'tool-call')).toHaveLength(turns);
    expect(kinds.filter((k) => k === 'tool-result')).toHaveLength(turns);
    const continued = live.filter((e) => e.kind === 'continued').map((e) => (e as { workflow: string }).workflow);
    expect(continued).toContain('visit');
    expect(continued).toContain('run');
    expect(live.filter((e) => e.kind === 'stage-entered').map((e) => (e as { stage: string }).stage)).toEqual([
      'main',
      'wrap',
    ]);
    // Each turn's end follows its start, with the window by region.
    const ended = live.find((e) => e.kind === 'turn-ended');
    expect(ended).toMatchObject({ stage: 'main', window: { regions: expect.any(Array) } });

    // Read again after the end, from an offset: the same events, from the workflows' carried tails.
    const from = live.length - 12;
    const again = durable(await collect(subscribeRun(env.rt.client, handle.workflowId, { from, follow: false })));
    // `time` is the workflow's clock, which a replay may set a few ms apart (docs/reference/events.md#resuming-and-what-is-durable).
    const timeless = (events: RunEvent[]) => events.map(({ time: _time, ...rest }) => rest);
    expect(timeless(again)).toEqual(timeless(live.slice(from)));
  });

  it('tells region writes, an eviction, a wait for approval and its end, and a fold, in order', async () => {
    const note = 'A note long enough to fill most of the notes region on its own. '.repeat(3);
    const model = scriptedModel({
      turns: [
        { text: 'Noting.', tool_calls: [{ name: 'context_append', arguments: { region: 'notes', content: note } }] },
        {
          text: 'Noting again and writing.',
          tool_calls: [
            { name: 'context_append', arguments: { region: 'notes', content: note } },
            { name: 'write_file', arguments: { path: 'out.txt', content: 'two' } },
          ],
        },
        { text: 'Looking once more.' },
        { text: 'Still here.' },
        { text: 'Done.' },
      ],
    });
    const toml = `[agent]\nname = "regions"\nmodel = "${model}"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
notes        = { kind = "temporary", max_tokens = 80 }
conversation = { kind = "sliding_window", max_tokens = 4000, max_items = 4, strategy = "compact", compact_count = 2 }
[stages.work]
available_tools = ["write_file", "context_append"]
[tool_permissions]
write_file = "ask"
`;
    // Attended, so the write waits for a person's approval.
    const handle = await start(toml, { unattended: false });
    await expect
      .poll(async () => (await runProgress(env.rt.client, handle))?.waiting, { timeout: 60_000 })
      .toBe('approval');
    await sendUpdate(env.rt.client, handle.workflowId, 'approve');
    const events = durable(await collect(subscribeRun(env.rt.client, handle.workflowId, { from: 0 })));
    expect((await runOutcome(handle)).status).toBe('completed');

    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
    const at = (kind: RunEvent['kind'], fields: Record<string, unknown> = {}) =>
      events.findIndex((e) => e.kind === kind && Object.entries(fields).every(([k, v]) => (e as never)[k] === v));
    const written = at('region-write', { region: 'notes' });
    expect(events[written]).toMatchObject({ entries: 1, tokens: expect.any(Number), preview: note.slice(0, 80) + '…' });
    const evicted = at('evicted', { region: 'notes', cause: 'write' });
    expect(events[evicted]).toMatchObject({ entries: 1 });
    const started = at('wait-started', { wait: 'approval' });
    expect(events[started]).toMatchObject({ detail: expect.stringContaining('write_file') });
    const ended = at('wait-ended', { wait: 'approval' });
    expect(events[ended]).toMatchObject({ ended: 'approved' });
    const folded = at('folded', { region: 'conversation', ok: true });
    expect(events[folded]).toMatchObject({ entries: expect.any(Number), summaryTokens: expect.any(Number) });
    // The first note is written in turn 1; the second turn waits for the approval, then writes the note that sheds the first.
    const secondTurn = events.flatMap((e, i) => (e.kind === 'turn-ended' ? [i] : []))[1]!;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(secondTurn);
    expect(secondTurn).toBeLessThan(started);
    expect(started).toBeLessThan(ended);
    expect(ended).toBeLessThan(evicted);
    expect(evicted).toBeLessThan(folded);
    expect(events.at(-1)).toMatchObject({ kind: 'run-ended', status: 'completed' });
  });

  it("gives the model's text as it arrives, before its turn ends", async () => {
    const text = 'Streaming this reply piece by piece, so a person sees it come.';
    // The reply streams half its text, then waits at its gate until the reader saw some of it.
    const gate = `tokens-half-${process.pid}`;
    const model = scriptedModel({ turns: [{ text, text_gate: gate }] });
    const toml = `[agent]\nname = "tokens"\n[stages.main]\nmodel = "${model}"\n`;
    const handle = await start(toml, {});
    const items: StreamItem[] = [];
    try {
      for await (const item of subscribeRun(env.rt.client, handle.workflowId, { tokens: true })) {
        items.push(item);
        if (item.kind === 'text') openGate(gate);
      }
    } finally {
      openGate(gate);
    }
    await handle.result();
    const endAt = items.findIndex((i) => i.kind === 'turn-ended');
    const deltas = items.filter((i): i is TextDelta => i.kind === 'text');
    expect(deltas.length).toBeGreaterThan(0);
    // Every delta came before the turn's end, in order, and together they are a prefix of the reply.
    expect(items.findLastIndex((i) => i.kind === 'text')).toBeLessThan(endAt);
    let seen = '';
    for (const d of deltas) {
      expect(d.at).toBe(seen.length);
      seen += d.text;
    }
    expect(text.startsWith(seen)).toBe(true);
    expect(deltas.every((d) => d.turn === (items[endAt] as { turn: number }).turn)).toBe(true);
  });

  it("shows the text as it comes in lev attach, before the run's end, and prints the stream with lev events", async () => {
    const text = 'Attached readers see this sentence arrive before the turn summary.';
    // The reply streams half its text and waits at its gate until lev attach has printed that half.
    const gate = `attach-half-${process.pid}`;
    const model = scriptedModel({ turns: [{ text, text_gate: gate }] });
    const handle = await start(`[agent]\nname = "attached"\n[stages.main]\nmodel = "${model}"\n`, {});
    const attach = startLev(['attach', handle.workflowId, '--address', temporalAddress()], {
      LEVIATH_HOME: tempDir('attach-home'),
      LEVIATH_CONFIG: join(tempDir('no-config'), 'config.toml'),
    });
    try {
      await attach.waitFor(new RegExp(text.slice(0, 20)));
      expect(attach.stdout()).not.toContain('Run completed');
    } finally {
      openGate(gate);
    }
    expect(await attach.exited).toBe(0);
    // The output after the turn's end repeats the text whole.
    expect(attach.stdout()).toContain(text);
    expect(attach.stdout()).toContain('Run completed');

    const lines = await lev(['events', handle.workflowId, '--address', temporalAddress(), '--no-follow']);
    expect(lines.code).toBe(0);
    expect(lines.stdout.split('\n')[0]).toBe('#0 stage-entered main (visit 1)');
    expect(lines.stdout).toMatch(/^#\d+ run-ended completed$/m);
    const json = await lev(['events', handle.workflowId, '--address', temporalAddress(), '--json', '--from', '1']);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RunEvent);
    // The task seeded into its region comes before the first turn.
    expect(events[0]).toMatchObject({ v: 1, offset: 1, kind: 'region-write', preview: expect.any(String) });
    expect(events[1]).toMatchObject({ v: 1, offset: 2, kind: 'turn-started' });
    expect(events.at(-1)).toMatchObject({ kind: 'run-ended' });
    const unknown = await lev(['events', 'no-such-run', '--address', temporalAddress()]);
    expect(unknown.stderr).toContain('[run-not-found]');
  });
});
