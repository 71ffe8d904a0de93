import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preview } from '../src/context/measure.js';
import { clipUnits, cutUnits } from '../src/truncate.js';

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('surrogate-safe cuts', () => {
  it('drops a high surrogate left alone at the cut, keeps whole characters', () => {
    expect(cutUnits('ab😀c', 3)).toBe('ab');
    expect(cutUnits('ab😀c', 4)).toBe('ab😀');
    expect(cutUnits('short', 10)).toBe('short');
    expect(clipUnits('ab😀c', 3)).toBe('ab…');
    expect(clipUnits('abc', 3)).toBe('abc');
  });

  it('never produces ill-formed text, for any text and length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 0, max: 45 }), (text, max) => {
        const cut = cutUnits(text, max);
        expect(cut).not.toMatch(LONE_SURROGATE);
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
      }),
    );
  });

  it('keeps entry previews (context_list) well formed', () => {
    expect(preview(`${'y'.repeat(59)}🎉 tail`, 60)).toBe(`${'y'.repeat(59)}…`);
  });
});
