import { describe, expect, it } from 'vitest';
import { groupRanges, joinedGroupStart, joinedGroupTokens } from '../../src/context/groups.js';
import type { Entry } from '../../src/shapes/content.js';

let id = 0;
function e(kind: Entry['kind'], extra: Partial<Entry> = {}): Entry {
  id += 1;
  return { id, content: `${kind}${id}`, tokens: 10, kind, created: id, touched: id, at: 0, ...extra };
}

const call = (ids: string[]) =>
  e('assistant', { toolCalls: ids.map((i) => ({ id: i, name: 'read_file', arguments: {} })) });
const result = (i: string) => e('tool_result', { toolCallId: i });

describe('turn groups (docs/reference/regions.md#turn-groups)', () => {
  it('joins an assistant turn with the results of its own calls that follow it', () => {
    const entries = [e('user'), call(['a', 'b']), result('a'), result('b'), e('user')];
    expect(groupRanges(entries)).toEqual([
      [0, 1],
      [1, 4],
      [4, 5],
    ]);
  });

  it("treats a result for another turn's call, or after a gap, as its own group", () => {
    const entries = [call(['a']), e('text'), result('a'), result('z')];
    expect(groupRanges(entries)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });

  it('says which group a new result joins and what it weighs', () => {
    const entries = [e('user'), call(['a', 'b']), result('a')];
    expect(joinedGroupStart(entries, { kind: 'tool_result', toolCallId: 'b' })).toBe(1);
    expect(joinedGroupTokens(entries, { kind: 'tool_result', toolCallId: 'b' })).toBe(20);
    expect(joinedGroupStart(entries, { kind: 'tool_result', toolCallId: 'x' })).toBeNull();
    expect(joinedGroupStart(entries, { kind: 'user' })).toBeNull();
  });
});
