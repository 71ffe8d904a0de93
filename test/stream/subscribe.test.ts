import { describe, expect, it } from 'vitest';
import { deltasOf } from '../../src/stream/subscribe.js';

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
