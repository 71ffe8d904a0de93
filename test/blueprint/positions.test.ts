import { describe, expect, it } from 'vitest';
import { indexPositions } from '../../src/blueprint/positions.js';

function at(text: string, ...path: string[]) {
  return indexPositions(text).get(path);
}

describe('key positions', () => {
  const text = `# a comment with "quotes" and = signs
[agent]
name = "x" # trailing
prompt = """
a multi-line string with [brackets] and key = "value"
"""
literal = '''
also [not] a table
'''

[stages.plan.transitions."to review"]
gate = { require_no_open_items = "todos",
         message = "Finish first." }
tools = [ "a", { name = "read_file", args = { path = "x" } } ]
a.b.c = 1
`;

  it('locates headers, keys after multi-line strings, quoted keys and inline-table members', () => {
    expect(at(text, 'agent')).toEqual({ line: 2, column: 1 });
    expect(at(text, 'agent', 'name')).toEqual({ line: 3, column: 1 });
    expect(at(text, 'agent', 'literal')).toEqual({ line: 7, column: 1 });
    expect(at(text, 'stages', 'plan', 'transitions', 'to review')).toEqual({ line: 11, column: 1 });
    expect(at(text, 'stages', 'plan')).toEqual({ line: 11, column: 1 });
    expect(at(text, 'stages', 'plan', 'transitions', 'to review', 'gate', 'message')).toEqual({ line: 13, column: 10 });
    expect(at(text, 'stages', 'plan', 'transitions', 'to review', 'tools', '1', 'args', 'path')).toEqual({
      line: 14,
      column: 47,
    });
    expect(at(text, 'stages', 'plan', 'transitions', 'to review', 'a', 'b', 'c')).toEqual({ line: 15, column: 1 });
  });

  it('never throws and keeps what it found before something it cannot follow', () => {
    const index = indexPositions('a = 1\nb = @@@\n');
    expect(index.get(['a'])).toEqual({ line: 1, column: 1 });
  });
});
