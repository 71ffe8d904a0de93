/** The table `lev stages` prints (docs/reference/cli.md#lev-stages). */
import { describe, expect, it } from 'vitest';
import { formatLedger } from '../../src/cli/stages-action.js';
import type { StageLedger } from '../../src/stream/stage-ledger.js';

const usage = (p: number, c: number) => ({
  promptTokens: p,
  completionTokens: c,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
const visit = {
  visit: 1,
  stage: 'investigate',
  startedAt: Date.UTC(2026, 11, 7, 19, 30, 5),
  endedAt: Date.UTC(2026, 11, 7, 19, 31, 10),
  turns: 4,
  usage: usage(16832, 2249),
  cost: 0.0123,
  end: 'completed',
  gates: { passed: 1, blocked: 0 },
  next: 'report',
};

describe('lev stages table', () => {
  it('prints a row per visit, the run end after the last, and the total', () => {
    const ledger: StageLedger = {
      visits: [
        visit,
        { ...visit, visit: 2, stage: 'report', turns: 1, usage: usage(37644, 493), cost: null, next: null },
      ],
      total: { turns: 5, usage: usage(54476, 2742), cost: 0.0123 },
      runEnded: { status: 'completed' },
      from: 0,
    };
    const lines = formatLedger(ledger).split('\n');
    expect(lines[0]).toMatch(
      /^VISIT\s+STAGE\s+STARTED\s+TOOK\s+TURNS\s+PROMPT\s+OUTPUT\s+CACHE RD\s+CACHE WR\s+COST\s+END\s+NEXT$/,
    );
    expect(lines[1]).toMatch(
      /^\s*1\s+investigate\s+12-07 19:30:05\s+1m5s\s+4\s+16832\s+2249\s+0\s+0\s+\$0\.01\s+completed\s+report$/,
    );
    expect(lines[2]).toMatch(/\s+report\s.*\s-\s+completed\s+\(run completed\)$/);
    expect(lines[3]).toMatch(/^\s+TOTAL\s+5\s+54476\s+2742\s+0\s+0\s+\$0\.01$/);
    expect(lines).toHaveLength(4);
  });

  it('shows a running visit and says when earlier visits are gone', () => {
    const running = { ...visit, endedAt: null, end: null, next: null };
    const text = formatLedger({
      visits: [running],
      total: { turns: 4, usage: usage(1, 1), cost: null },
      runEnded: null,
      from: 12,
    });
    expect(text.split('\n')[1]).toMatch(/\s-\s+4\s.*\s+running\s+-$/);
    expect(text).toContain('no longer keeps its events before offset 12');
  });
});
