/** The progress view a run and a stage visit answer: counters plus the visible regions' fill. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { createRunState } from '../../src/context/index.js';
import { emptyUsage, progressOf } from '../../src/runtime/types.js';

describe('progressOf', () => {
  it('adds the visible regions, the window used and the forced gates to the counters', () => {
    const bp = loadBlueprintFromString(
      '[context.regions]\nnotes = { kind = "temporary", max_tokens = 1000 }\n',
      tmpdir(),
      'agent.toml',
    ).blueprint!;
    const state = createRunState(bp);
    const notes = state.regions.find((r) => r.name === 'notes')!;
    // No stage has been entered yet, so mark the region visible as entering one would.
    notes.hidden = false;
    notes.entries.push({ id: 1, content: 'x', tokens: 40, kind: 'text', created: 1, touched: 1, at: 0 });
    const p = progressOf(state, {
      runId: 'r',
      status: 'running',
      stage: 'main',
      inferences: 3,
      visitTurns: 1,
      usage: emptyUsage(),
      waiting: 'message',
      cost: { usd: null, priced: [], unpriced: [] },
      asks: [],
      paused: false,
      heldMessages: 0,
      recentCalls: [],
    });
    expect(p).toMatchObject({
      runId: 'r',
      inferences: 3,
      visitTurns: 1,
      waiting: 'message',
      gatesForced: [],
      gates: { attempts: 0, blocked: 0 },
    });
    expect(p.regions.find((r) => r.name === 'notes')).toEqual({
      name: 'notes',
      kind: 'temporary',
      tokens: 40,
      budget: notes.budget,
      entries: 1,
    });
    expect(p.window.used).toBe(p.regions.reduce((a, r) => a + r.tokens, 0));
  });
});
