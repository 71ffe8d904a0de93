import { describe, expect, it } from 'vitest';
import { enterStage } from '../../src/context/enter-stage.js';
import { maintain, recordUsage, replyLimit } from '../../src/context/maintenance.js';
import { regionTokens } from '../../src/context/measure.js';
import { runSync } from '../../src/context/requests.js';
import { findRegion, windowUsed } from '../../src/context/state.js';
import { blueprint, def, env, put, run, stage, start, tokensOf, user } from './helpers.js';

describe('compaction pass (docs/reference/regions.md#fold)', () => {
  const conv = def('conversation', 'sliding_window', {
    maxTokens: 1000,
    maxItems: 5,
    strategy: 'compact',
    compactCount: 3,
  });

  it('folds a compact-strategy window into a summary at index 0 (scenario 10)', () => {
    const bp = blueprint([conv]);
    const s = start(bp);
    for (let i = 0; i < 6; i++) user(s, `u${i}`, 10);
    run(maintain(s, bp, env));
    const c = findRegion(s, 'conversation')!;
    expect(c.entries.map((e) => e.content).slice(1)).toEqual(['u3', 'u4', 'u5']);
    expect(c.entries[0]!.summary).toBe(true);
    expect(c.entries[0]!.tokens).toBe(3);
    expect(String(c.entries[0]!.content)).toMatch(/^summary of 3 entries \(30 tokens\) from conversation/);
    expect(regionTokens(c)).toBe(33);
  });

  it('delivers the summary to a paired compact_history (scenario 10 variant)', () => {
    const bp = blueprint([conv, def('conv_hist', 'compact_history', { maxTokens: 500, sourceRegion: 'conversation' })]);
    const s = start(bp);
    for (let i = 0; i < 6; i++) user(s, `u${i}`, 10);
    run(maintain(s, bp, env));
    expect(findRegion(s, 'conversation')!.entries.map((e) => e.content)).toEqual(['u3', 'u4', 'u5']);
    expect(tokensOf(s, 'conv_hist')).toEqual([3]);
  });

  const codebase = def('codebase', 'compacting', { maxTokens: 1000, compactAt: 0.8 });

  it('folds a compacting region over its threshold (scenario 11)', () => {
    const bp = blueprint([codebase]);
    const s = start(bp);
    for (const n of ['e0', 'e1', 'e2']) put(s, 'codebase', n, 300);
    run(maintain(s, bp, env));
    const c = findRegion(s, 'codebase')!;
    expect(c.threshold).toBe(800);
    expect(c.entries.map((e) => [e.tokens, e.summary ?? false])).toEqual([
      [60, true],
      [300, false],
    ]);
  });

  it('sends the fold of scenario 11 to a paired history', () => {
    const bp = blueprint([codebase, def('history', 'compact_history', { maxTokens: 500, sourceRegion: 'codebase' })]);
    const s = start(bp);
    for (const n of ['e0', 'e1', 'e2']) put(s, 'codebase', n, 300);
    run(maintain(s, bp, env));
    expect(tokensOf(s, 'codebase')).toEqual([300]);
    expect(tokensOf(s, 'history')).toEqual([60]);
  });

  it('folds pending entries without discarding anything (scenario 12)', () => {
    const bp = blueprint([codebase]);
    const s = start(bp);
    put(s, 'codebase', 'a', 600);
    const second = put(s, 'codebase', 'b', 600);
    expect(second.ok && second.pending.length).toBe(1);
    run(maintain(s, bp, env));
    expect(tokensOf(s, 'codebase')).toEqual([60, 600]);
  });

  it('re-summarises a full history (scenario 13)', () => {
    const bp = blueprint([
      def('codebase', 'compacting', { maxTokens: 5000, thresholdTokens: 1000 }),
      def('history', 'compact_history', { maxTokens: 100, sourceRegion: 'codebase' }),
    ]);
    const s = start(bp);
    put(s, 'codebase', 'a', 700);
    put(s, 'codebase', 'b', 700);
    run(maintain(s, bp, env));
    expect(tokensOf(s, 'history')).toEqual([70]);
    put(s, 'codebase', 'c', 700);
    run(maintain(s, bp, env));
    const h = findRegion(s, 'history')!;
    expect(h.entries.map((e) => [e.tokens, e.summary])).toEqual([[14, true]]);
    expect(findRegion(s, 'codebase')!.entries.map((e) => e.content)).toEqual(['c']);
  });

  it('puts everything back when the summariser fails, and discards pending after three failures', () => {
    const bp = blueprint([codebase]);
    const s = start(bp);
    put(s, 'codebase', 'a', 600);
    put(s, 'codebase', 'b', 600);
    const failing = (req: { type: string }) => (req.type === 'summarise' ? { ok: false, error: 'model down' } : 1);
    for (let i = 1; i <= 2; i++) {
      const r = runSync(maintain(s, bp, env), failing);
      expect(r.folds[0]!.ok).toBe(false);
      expect(findRegion(s, 'codebase')!.pending).toHaveLength(1);
      expect(findRegion(s, 'codebase')!.foldFailures).toBe(i);
    }
    const third = runSync(maintain(s, bp, env), failing);
    expect(third.folds[0]!.discarded).toEqual({ entries: 1, tokens: 600 });
    expect(findRegion(s, 'codebase')!.pending).toHaveLength(0);
    expect(s.diagnostics.map((d) => d.code)).toContain('compaction-discarded');
    expect(tokensOf(s, 'codebase')).toEqual([600]);
  });
});

describe('window cascade (docs/reference/regions.md#window-cascade)', () => {
  it('wipes clearable regions first (scenario 27)', () => {
    const bp = blueprint([
      def('p', 'pinned', { maxTokens: 2000 }),
      def('c', 'clearable', { maxTokens: 3000 }),
      def('t', 'temporary', { maxTokens: 4000 }),
    ]);
    const s = start(bp, 10_000);
    put(s, 'p', 'seed', 2000, { seeded: true });
    put(s, 'c', 'c', 2500);
    for (let i = 0; i < 3; i++) put(s, 't', `t${i}`, 1000);
    user(s, 'a', 1000);
    user(s, 'b', 600);
    run(maintain(s, bp, env));
    expect(findRegion(s, 'c')!.entries).toHaveLength(0);
    expect(findRegion(s, 't')!.entries).toHaveLength(3);
    expect(windowUsed(s)).toBe(6600);
  });

  const layout = (admission: 'evict' | 'reject') =>
    blueprint([def('p', 'pinned', { maxTokens: 6000 }), def('t', 'temporary', { maxTokens: 4000, admission })]);

  it('drops the oldest temporary group (scenario 28)', () => {
    const bp = layout('evict');
    const s = start(bp, 10_000);
    put(s, 'p', 'seed', 5500);
    for (let i = 0; i < 3; i++) put(s, 't', `t${i}`, 1000);
    user(s, 'a', 1000);
    user(s, 'b', 100);
    run(maintain(s, bp, env));
    expect(findRegion(s, 't')!.entries.map((e) => e.content)).toEqual(['t1', 't2']);
    expect(windowUsed(s)).toBe(8600);
  });

  it('leaves reject regions alone and records window-pressure (scenario 28 variant)', () => {
    const bp = layout('reject');
    const s = start(bp, 10_000);
    put(s, 'p', 'seed', 5500);
    for (let i = 0; i < 3; i++) put(s, 't', `t${i}`, 1000);
    user(s, 'a', 1000);
    user(s, 'b', 100);
    const report = run(maintain(s, bp, env));
    expect(findRegion(s, 't')!.entries).toHaveLength(3);
    expect(s.diagnostics.map((d) => d.code)).toContain('window-pressure');
    expect(report.windowPressure).toEqual({ used: 9600, gap: 0, W: 10_000, shortfall: 600 });
  });

  it('counts the calibration gap (scenario 38)', () => {
    const bp = blueprint([def('t', 'temporary', { maxTokens: 5000 })]);
    const s = start(bp, 10_000);
    put(s, 't', 'a', 2000);
    put(s, 't', 'b', 2000);
    user(s, 'u', 4000);
    run(maintain(s, bp, env));
    put(s, 'conversation', '', 0, { kind: 'assistant' });
    recordUsage(s, 9500);
    expect(s.window.gap).toBe(1500);
    run(maintain(s, bp, env));
    expect(s.window).toEqual({ max: 10_000, gap: 1500 });
    expect(windowUsed(s)).toBe(6000);
    expect(replyLimit(s, 8192)).toBe(2500);
    recordUsage(s, 100);
    expect(s.window.gap).toBe(1500);
  });
});

describe('fold edge cases (docs/reference/regions.md#fold and docs/reference/regions.md#fold-failure)', () => {
  const bp = blueprint([def('codebase', 'compacting', { maxTokens: 1000, compactAt: 0.8 })]);

  it('cuts a summary longer than its limit', () => {
    const s = start(bp);
    for (const n of ['a', 'b', 'c']) put(s, 'codebase', n, 300);
    const seen: { type: string; target?: number }[] = [];
    runSync(maintain(s, bp, env), (req) => {
      seen.push(req);
      if (req.type === 'summarise') return { ok: true, text: { content: 'very long', tokens: 900 } };
      if (req.type === 'cut') return { content: 'cut', tokens: req.target };
      return 1;
    });
    expect(seen.find((r) => r.type === 'cut')?.target).toBe(400);
    expect(tokensOf(s, 'codebase')).toEqual([400, 300]);
  });

  it('treats blank summaries as failures and restores the entries in order', () => {
    const s = start(bp);
    for (const n of ['a', 'b', 'c']) put(s, 'codebase', n, 300);
    const report = runSync(maintain(s, bp, env), (req) =>
      req.type === 'summarise' ? { ok: true, text: { content: '  ', tokens: 1 } } : 1,
    );
    expect(report.folds[0]).toMatchObject({ ok: false, error: expect.stringContaining('blank') });
    expect(findRegion(s, 'codebase')!.entries.map((e) => e.content)).toEqual(['a', 'b', 'c']);
    expect(s.diagnostics.map((d) => d.code)).toContain('compaction-failed');
  });

  it('folds compacting regions in cascade phase 4, keeping the newest group', () => {
    const b = blueprint([
      def('p', 'pinned', { maxTokens: 5000 }),
      def('codebase', 'compacting', { maxTokens: 5000, thresholdTokens: 5000 }),
    ]);
    const s = start(b, 10_000);
    put(s, 'p', 'p', 5000);
    for (const n of ['a', 'b', 'c']) put(s, 'codebase', n, 1500);
    const report = run(maintain(s, b, env));
    expect(report.folds).toHaveLength(1);
    expect(tokensOf(s, 'codebase')).toEqual([300, 1500]);
  });

  it('leaves pending entries of a hidden region alone until it is shown', () => {
    const b = blueprint([bp.regions[0]!], [stage('a'), stage('b', { regions: [def('other', 'temporary')] })]);
    const s = start(b);
    put(s, 'codebase', 'a', 600);
    put(s, 'codebase', 'b', 600);
    run(enterStage(s, b, 'b', env));
    expect(run(maintain(s, b, env)).folds).toEqual([]);
    run(enterStage(s, b, 'a', env));
    expect(run(maintain(s, b, env)).folds).toHaveLength(1);
  });
});

describe('compact_history delivery failures (docs/reference/regions.md#history-delivery)', () => {
  it('keeps the source entries when re-summarising a full history fails', () => {
    const bp = blueprint([
      def('codebase', 'compacting', { maxTokens: 5000, thresholdTokens: 1000 }),
      def('history', 'compact_history', { maxTokens: 100, sourceRegion: 'codebase' }),
    ]);
    const s = start(bp);
    put(s, 'codebase', 'a', 700);
    put(s, 'codebase', 'b', 700);
    run(maintain(s, bp, env));
    put(s, 'codebase', 'c', 700);
    const clock = s.clock;
    let calls = 0;
    const report = runSync(maintain(s, bp, env), (req) => {
      if (req.type !== 'summarise') return 1;
      calls += 1;
      return calls === 1 ? { ok: true, text: { content: 'S2', tokens: 70 } } : { ok: false, error: 'timeout' };
    });
    expect(report.folds[0]).toMatchObject({ ok: false, error: 'timeout' });
    expect(findRegion(s, 'codebase')!.entries.map((e) => e.content)).toEqual(['b', 'c']);
    expect(tokensOf(s, 'history')).toEqual([70]);
    expect(s.clock).toBe(clock);
  });

  it('never lets the reply limit drop below 1', () => {
    const bp = blueprint([def('t', 'temporary', { maxTokens: 9000, admission: 'reject' })]);
    const s = start(bp, 10_000);
    put(s, 't', 'x', 9000);
    recordUsage(s, 20_000);
    expect(replyLimit(s, 4096)).toBe(1);
  });
});
