import { describe, expect, it } from 'vitest';
import { advertisedNames, grantedMcpTools, sanitizeToolName, type ToolCatalog } from '../../src/mcp/tool-names.js';
import { RESERVED_TOOL_NAMES } from '../../src/runtime/mcp-grants.js';

function catalog(...tools: [string, string][]): ToolCatalog {
  const names = advertisedNames(
    tools.map(([server, tool]) => ({ server, tool })),
    RESERVED_TOOL_NAMES,
  );
  return {
    tools: tools.map(([server, tool], i) => ({
      server,
      tool,
      advertised: names[i] as string,
      description: '',
      parameters: {},
    })),
    unreachable: [],
  };
}

describe('MCP tool names', () => {
  it('keeps what providers accept and turns everything else into _', () => {
    expect(sanitizeToolName('get_weather-2')).toBe('get_weather-2');
    expect(sanitizeToolName('admin.tools.list')).toBe('admin_tools_list');
    expect(sanitizeToolName('weird name!/#')).toBe('weird_name___');
    expect(sanitizeToolName('....')).toBe('____');
    expect(sanitizeToolName('')).toBe('tool');
    expect(sanitizeToolName('x'.repeat(100))).toHaveLength(64);
  });

  it('qualifies every tool with its server, whatever else is configured', () => {
    const c = catalog(['alpha', 'search'], ['beta', 'search'], ['github', 'issues.create']);
    expect(c.tools.map((t) => t.advertised)).toEqual(['alpha__search', 'beta__search', 'github__issues_create']);
  });

  it('numbers names that sanitise to one another', () => {
    const c = catalog(['fs', 'a.b'], ['fs', 'a_b'], ['fs', 'a?b']);
    expect(c.tools.map((t) => t.advertised)).toEqual(['fs__a_b', 'fs__a_b_2', 'fs__a_b_3']);
  });

  it('never takes a built-in name', () => {
    expect(advertisedNames([{ server: 'x', tool: 'y' }], ['x__y'])).toEqual(['x__y_2']);
  });
});

describe('MCP grants', () => {
  const c = catalog(['alpha', 'search'], ['beta', 'search'], ['beta', 'fetch'], ['github', 'create_issue']);

  it('grants an advertised name one by one', () => {
    expect(grantedMcpTools(c, ['beta__fetch'], [])).toEqual(['beta__fetch']);
  });

  it('grants a bare name when exactly one server offers it', () => {
    expect(grantedMcpTools(c, ['create_issue'], [])).toEqual(['github__create_issue']);
    expect(grantedMcpTools(c, ['search'], [])).toEqual([]);
  });

  it('grants every tool of a connector, in catalog order', () => {
    expect(grantedMcpTools(c, ['github__create_issue'], ['beta'])).toEqual([
      'beta__search',
      'beta__fetch',
      'github__create_issue',
    ]);
  });

  it('grants nothing for a server that offered nothing', () => {
    expect(grantedMcpTools(c, ['gone__tool'], ['gone'])).toEqual([]);
  });
});
