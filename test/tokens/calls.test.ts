/** What tool calls cost (docs/reference/regions.md#token-counting). */
import { describe, expect, it } from 'vitest';
import { countToolCall } from '../../src/tokens/call-costs.js';

describe('countToolCall', () => {
  it('counts a long argument once, on its own, and not again inside the JSON', () => {
    const long = 'ledger '.repeat(4000);
    const seen: string[] = [];
    const count = (text: string) => {
      seen.push(text);
      return Math.ceil(text.length / 4);
    };
    const out = countToolCall({ name: 'context_append', arguments: { region: 'notes', content: long } }, count);
    expect(seen.filter((t) => t.includes('ledger'))).toEqual([long]);
    expect(out.argTokens).toEqual({ content: count(long) });
    expect(out.tokens).toBe(count(long) + count('context_append{"region":"notes","content":""}'));
  });

  it('counts long arguments of any tool on their own, short ones inside the JSON', () => {
    const long = 'x = 1\n'.repeat(1000);
    const count = (text: string) => text.length;
    const out = countToolCall({ name: 'write_file', arguments: { path: 'a.py', content: long, mode: 'w' } }, count);
    expect(out.tokens).toBe(long.length + 'write_file{"path":"a.py","content":"","mode":"w"}'.length);
    const short = countToolCall({ name: 'read_file', arguments: { path: 'a.py' } }, count);
    expect(short).toEqual({ tokens: 'read_file{"path":"a.py"}'.length, argTokens: {} });
  });
});
