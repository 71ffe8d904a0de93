import { createRequire } from 'node:module';
import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { countTokens, cutToTokens, encoderFor } from '../../src/tokens/count.js';
import { cutMarker, makeSyncHandler } from '../../src/tokens/exact-answers.js';
import { modelEncoding } from '../../src/tokens/model.js';

const ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;

describe('countTokens', () => {
  it('gives the exact tiktoken counts', () => {
    expect(countTokens('hello world', 'o200k_base')).toBe(2);
    expect(countTokens('hello world', 'cl100k_base')).toBe(2);
    expect(countTokens('', 'o200k_base')).toBe(0);
  });

  it('treats special-token spellings in tool output as plain text', () => {
    expect(countTokens('<|endoftext|>', 'cl100k_base')).toBeGreaterThan(1);
  });

  it('differs between encodings where the vocabularies differ', () => {
    const text = 'Привет, мир! こんにちは世界';
    expect(countTokens(text, 'o200k_base')).not.toBe(countTokens(text, 'r50k_base'));
  });
});

const require = createRequire(import.meta.url);
const tiktoken = new Map<string, Tiktoken>();

/** js-tiktoken, the reference implementation of the encodings, on the whole text. */
function reference(text: string, encoding: (typeof ENCODINGS)[number]): number {
  let encoder = tiktoken.get(encoding);
  if (!encoder) {
    encoder = new Tiktoken(require(`js-tiktoken/ranks/${encoding}`) as TiktokenBPE);
    tiktoken.set(encoding, encoder);
  }
  return encoder.encode(text, [], []).length;
}

describe('countTokens on long pieces', () => {
  it('counts ordinary text exactly as js-tiktoken does unsplit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.lorem({ maxCount: 30 })), {
          maxLength: 12,
        }),
        fc.constantFrom(...ENCODINGS),
        (parts, encoding) => {
          const text = parts.join(' ');
          expect(countTokens(text, encoding)).toBe(reference(text, encoding));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('counts long runs of one character exactly, in any encoding', () => {
    for (const unit of ['a', 'Q', 'é', '😀', ' ', '.', 'ab', 'xY', '\t ']) {
      for (const encoding of ENCODINGS) {
        const text = `start ${unit.repeat(300)} end`;
        expect(countTokens(text, encoding)).toBe(reference(text, encoding));
      }
    }
  });

  it('cuts a long run exactly to its target', () => {
    const cut = cutToTokens(`${'z'.repeat(5000)} tail`, 40, 'o200k_base');
    expect(cut.tokens).toBeLessThanOrEqual(40);
    expect(cut.tokens).toBe(reference(cut.text, 'o200k_base'));
  });

  it('counts a 1 MB run of one character (js-tiktoken alone takes minutes)', () => {
    const thousand = countTokens('a'.repeat(1000), 'o200k_base');
    const count = countTokens('a'.repeat(1_000_000), 'o200k_base');
    expect(Math.abs(count - thousand * 1000)).toBeLessThan(1000);
  });
});

describe('cutToTokens', () => {
  const long = 'The quick brown fox jumps over the lazy dog. '.repeat(300);

  it('returns text that already fits unchanged', () => {
    expect(cutToTokens('short text', 100, 'o200k_base')).toEqual({ text: 'short text', tokens: 2 });
  });

  it('keeps a prefix and a marker naming the dropped tokens, within the target', () => {
    const total = countTokens(long, 'o200k_base');
    const cut = cutToTokens(long, 200, 'o200k_base', cutMarker('the tool cap is 200 tokens'));
    expect(cut.tokens).toBeLessThanOrEqual(200);
    expect(cut.tokens).toBe(countTokens(cut.text, 'o200k_base'));
    expect(long.startsWith(cut.text.split('\n[cut:')[0] ?? '')).toBe(true);
    const dropped = Number(/\[cut: (\d+) more tokens dropped; the tool cap is 200 tokens\]$/.exec(cut.text)?.[1]);
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(total);
  });

  it('never exceeds the target, for any text, target and encoding', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom(...ENCODINGS),
        (text, target, encoding) => {
          const cut = cutToTokens(text, target, encoding);
          expect(cut.tokens).toBeLessThanOrEqual(Math.max(target, 0));
          expect(cut.tokens).toBe(countTokens(cut.text, encoding));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('falls back to a bare prefix when not even the marker fits', () => {
    const cut = cutToTokens(long, 3, 'o200k_base');
    expect(cut.tokens).toBeLessThanOrEqual(3);
    expect(long.startsWith(cut.text)).toBe(true);
  });
});

describe('makeSyncHandler', () => {
  const handler = makeSyncHandler('o200k_base', (region, entries, limit) => ({
    ok: true,
    text: { content: `${region}: ${entries.length} entries `.repeat(limit), tokens: limit * 5 },
  }));

  it('answers count and cut requests exactly', () => {
    expect(handler({ type: 'count', text: 'hello world' })).toBe(2);
    const cut = handler({
      type: 'cut',
      content: 'word '.repeat(500),
      tokens: 500,
      target: 50,
      marker: 'region full',
    }) as { content: string; tokens: number };
    expect(cut.tokens).toBeLessThanOrEqual(50);
    expect(cut.content).toContain('region full');
  });

  it('cuts a summary that comes back over its limit', () => {
    const answer = handler({ type: 'summarise', region: 'codebase', entries: [], limit: 20 }) as {
      ok: true;
      text: { tokens: number };
    };
    expect(answer.ok).toBe(true);
    expect(answer.text.tokens).toBeLessThanOrEqual(20);
  });
});

describe('encoders and model encodings', () => {
  it('builds one encoder per encoding and reuses it', () => {
    expect(encoderFor('cl100k_base')).toBe(encoderFor('cl100k_base'));
    expect(encoderFor('cl100k_base')).not.toBe(encoderFor('o200k_base'));
  });

  it('takes the table encoding first, then the model family (docs/reference/regions.md#encodings)', () => {
    const models = { 'openai:custom': { contextWindow: 1000, maxOutputTokens: 100, encoding: 'p50k_base' as const } };
    expect(modelEncoding(models, 'openai:custom')).toBe('p50k_base');
    expect(modelEncoding(models, 'openai:gpt-4o-mini')).toBe('o200k_base');
    expect(modelEncoding(models, 'openai:gpt-4-turbo')).toBe('cl100k_base');
    expect(modelEncoding(models, 'anthropic:claude-sonnet-4-5')).toBe('o200k_base');
  });
});
