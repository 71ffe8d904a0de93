import { describe, expect, it } from 'vitest';
import { deltasOf, IDLE_POLL_MS, nextWait, POLL_MS } from '../../src/stream/subscribe.js';

describe('deltasOf', () => {
  it("yields only the text a reader has not seen, with its character offset in the turn's reply", () => {
    const sent = new Map<number, string>();
    expect(deltasOf([{ turn: 3, text: 'Hel' }], sent, -1)).toEqual([{ kind: 'text', turn: 3, at: 0, text: 'Hel' }]);
    expect(deltasOf([{ turn: 3, text: 'Hel' }], sent, -1)).toEqual([]);
    expect(deltasOf([{ turn: 3, text: 'Hello' }], sent, -1)).toEqual([{ kind: 'text', turn: 3, at: 3, text: 'lo' }]);
  });

  it('starts again from 0 when a retried attempt starts its text again', () => {
    const sent = new Map([[3, 'Hello']]);
    expect(deltasOf([{ turn: 3, text: 'Hi' }], sent, -1)).toEqual([{ kind: 'text', turn: 3, at: 0, text: 'Hi' }]);
  });

  it('skips the text of a turn whose end was already yielded', () => {
    expect(deltasOf([{ turn: 3, text: 'late' }], new Map(), 3)).toEqual([]);
  });
});

describe('nextWait', () => {
  it('keeps the base pace after news and while a turn streams to the reader', () => {
    expect(nextWait(800, true, false, POLL_MS)).toBe(POLL_MS);
    expect(nextWait(800, false, true, POLL_MS)).toBe(POLL_MS);
  });

  it('slows a quiet run down by half each ask, to a query a second', () => {
    const waits: number[] = [];
    let wait = POLL_MS;
    for (let i = 0; i < 6; i++) {
      wait = nextWait(wait, false, false, POLL_MS);
      waits.push(wait);
    }
    expect(waits).toEqual([200, 400, 800, IDLE_POLL_MS, IDLE_POLL_MS, IDLE_POLL_MS]);
  });

  it('never asks faster than a base pace slower than a second', () => {
    expect(nextWait(2000, false, false, 2000)).toBe(2000);
  });
});
