/**
 * `applyNow` (src/runtime/ops.ts) applies an operation as `applyLive` does, the same
 * result, record and region set, but makes no promise while every answer is at hand.
 */
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../src/context/index.js';
import { createRunState } from '../../src/context/state.js';
import {
  applyLive,
  applyNow,
  ENGINE,
  isLater,
  type NowOrLater,
  type OpCall,
  type RecordedOp,
  replayOps,
} from '../../src/runtime/index.js';
import type { EngineRequest } from '../../src/shapes/engine-requests.js';
import { blueprint, def, handle, stage } from '../context/helpers.js';

const bp = blueprint(
  [def('notes', 'temporary', { maxTokens: 40 })],
  [stage('main', { systemPrompt: 'You are a careful test agent.' })],
);
const calls: OpCall[] = [
  { kind: 'enterStage', stage: 'main' },
  { kind: 'write', region: 'notes', entry: { kind: 'text', content: 'word '.repeat(100), tokens: 125 } },
  { kind: 'usage', promptTokens: 10 },
];

type Apply = (state: RunState, call: OpCall) => NowOrLater<{ result: unknown; record: RecordedOp }>;
const withAnswers =
  (answer: (req: EngineRequest) => unknown): Apply =>
  (state, call) =>
    applyNow(ENGINE, state, bp, call, { now: 5 }, answer);
const awaiting: Apply = (state, call) => applyLive(ENGINE, state, bp, call, { now: 5 }, async (req) => handle(req));

/** Applies every call with `apply`, the way the engine driver would; the records, results and state. */
async function appliedBy(apply: Apply) {
  const state = createRunState(bp, { window: 100_000 });
  const records: RecordedOp[] = [];
  const results: unknown[] = [];
  const later: boolean[] = [];
  for (const call of calls) {
    const applied = apply(state, call);
    later.push(isLater(applied));
    const { result, record } = await applied;
    records.push(record);
    results.push(result);
  }
  return { records, results, state, later };
}

describe('applying an operation without promises', () => {
  it('makes none when every answer is at hand, with the records and state applyLive makes', async () => {
    const now = await appliedBy(withAnswers(handle));
    const live = await appliedBy(awaiting);
    expect(now.later).toEqual([false, false, false]);
    expect(now.records).toEqual(live.records);
    expect(now.results).toEqual(live.results);
    expect(now.state).toEqual(live.state);
    // The operations asked something, so the records carry answers.
    expect(now.records.some((r) => r.answers.length > 0)).toBe(true);
  });

  it('goes on later from the first answer an activity gives, recording the answers in order', async () => {
    const asked: string[] = [];
    const later = await appliedBy(
      withAnswers((req) => {
        asked.push(req.type);
        return req.type === 'count' ? Promise.resolve(handle(req)) : handle(req);
      }),
    );
    const live = await appliedBy(awaiting);
    expect(asked).toContain('count');
    expect(later.later).toEqual([true, false, false]);
    expect(later.records).toEqual(live.records);
    expect(later.state).toEqual(live.state);
  });

  it('records what replays to the same region set', async () => {
    const now = await appliedBy(withAnswers(handle));
    const replayed = createRunState(bp, { window: 100_000 });
    replayOps(ENGINE, replayed, bp, now.records);
    expect(replayed).toEqual(now.state);
  });
});
