/**
 * The tool catalogue (`src/shapes/tool-catalogue.ts`): each tool's facts, and
 * the lists every folder reads from it instead of writing its own.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalTool,
  DEFAULT_GRANT,
  RUNTIME_TOOLS,
  TOOL_ALIASES,
  toolFacts,
  toolOrigin,
  toolsOf,
  toolsWhere,
} from '../../src/shapes/tool-catalogue.js';
import { BUILTIN_TOOL_TABLE } from '../../src/tools/registry.js';

describe('the tool catalogue', () => {
  it('gives a stage without available_tools the machine tools and the context tools', () => {
    expect(DEFAULT_GRANT).toEqual([...toolsOf('builtin'), ...toolsOf('context')]);
    expect(DEFAULT_GRANT).not.toContain('web_fetch');
    expect(DEFAULT_GRANT).not.toContain('ask_user');
  });

  it('has the workflow answer the context, person and agent tools, and a tool worker the rest', () => {
    const byWorkflow = toolsWhere((t) => t.answeredBy === 'workflow');
    expect(byWorkflow).toEqual([...toolsOf('context'), ...toolsOf('person'), ...toolsOf('agent')]);
    // Every tool a tool worker runs is in the tool table, but submit_output, which the tool activity checks itself.
    expect(toolsWhere((t) => t.answeredBy === 'tool-worker').filter((t) => !BUILTIN_TOOL_TABLE.has(t))).toEqual([
      'submit_output',
    ]);
    expect([...BUILTIN_TOOL_TABLE.keys()].every((t) => toolFacts(t)?.answeredBy === 'tool-worker')).toBe(true);
  });

  it('knows which tools modify files and which take a path', () => {
    expect(toolsWhere((t) => t.modifiesFiles)).toEqual(['write_file', 'edit_file']);
    expect(toolsWhere((t) => t.takesPath)).toEqual(['read_file', 'list_dir', 'write_file', 'edit_file']);
  });

  it('lists the asking tools as the runtime’s own', () => {
    expect(toolsOf('person')).toEqual([
      'ask_user',
      'ask_user_choice',
      'ask_user_confirm',
      'present_for_review',
      'edit_document',
    ]);
    expect(RUNTIME_TOOLS).toContain('submit_output');
  });

  it('resolves aliases to the tool they name', () => {
    expect(TOOL_ALIASES).toEqual({ bash: 'shell', ask_user_text: 'ask_user' });
    expect(canonicalTool('bash')).toBe('shell');
    expect(canonicalTool('grep')).toBe('grep');
  });

  it('tells where a named tool comes from: the runtime, a script of the blueprint, or an MCP server', () => {
    expect(toolOrigin('ask_user_choice', [])).toBe('runtime');
    expect(toolOrigin('bash', [])).toBe('runtime');
    expect(toolOrigin('owner', ['owner'])).toBe('script');
    expect(toolOrigin('github__create_issue', ['owner'])).toBe('mcp');
    expect(toolFacts('constructor')).toBeUndefined();
  });
});
