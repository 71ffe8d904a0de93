/**
 * Which grants of a stage are MCP grants (`src/runtime/mcp-grants.ts`): the
 * runtime's own tools, read from the tool catalogue, never are, so a stage
 * that lists only asking tools runs no discovery; visits recorded before
 * that fix keep their rule (`ASKING_TOOLS_NO_MCP_DISCOVERY`).
 */
import { describe, expect, it } from 'vitest';
import {
  anyDiscoveryRulesDiffer,
  discoveryRulesDiffer,
  grantRule,
  mcpGrants,
  needsDiscovery,
  RESERVED_TOOL_NAMES,
} from '../../src/runtime/mcp-grants.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { RUNTIME_TOOLS } from '../../src/shapes/tool-catalogue.js';
import { loadToml } from '../blueprint/helpers.js';

function bp(toml: string): Blueprint {
  const loaded = loadToml(toml);
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

const ASKING = bp(`[stages.ask]
mode = "interactive"
available_tools = ["ask_user_choice", "ask_user_confirm", "present_for_review", "read_file"]
[stages.ask.transitions.plain]
[stages.plain]
available_tools = ["read_file", "ask_user_text"]
mode = "interactive"
`);

describe('MCP grants', () => {
  it('are none for a stage that lists only the runtime’s own tools, the asking tools included', () => {
    expect(mcpGrants(ASKING, 'ask')).toEqual({ tools: [], connectors: [] });
    expect(needsDiscovery(ASKING, 'ask')).toBe(false);
    expect(needsDiscovery(ASKING, 'plain')).toBe(false);
  });

  it('keep the rule of visits recorded before the fix, which took the asking tools but ask_user for MCP tools', () => {
    expect(mcpGrants(ASKING, 'ask', 'before-asking-fix').tools).toEqual([
      'ask_user_choice',
      'ask_user_confirm',
      'present_for_review',
    ]);
    expect(needsDiscovery(ASKING, 'ask', 'before-asking-fix')).toBe(true);
    expect(needsDiscovery(ASKING, 'plain', 'before-asking-fix')).toBe(false);
  });

  it('ask the patch only where the two rules differ', () => {
    expect(discoveryRulesDiffer(ASKING, 'ask')).toBe(true);
    expect(discoveryRulesDiffer(ASKING, 'plain')).toBe(false);
    expect(anyDiscoveryRulesDiffer(ASKING)).toBe(true);
    expect(anyDiscoveryRulesDiffer(bp('[stages.a]\navailable_tools = ["read_file"]\n'))).toBe(false);
  });

  it('read the rule from the patch: taken, the catalogue; not taken or not asked, the earlier rule', () => {
    expect(grantRule(true)).toBe('catalogue');
    expect(grantRule(false)).toBe('before-asking-fix');
    expect(grantRule(undefined)).toBe('before-asking-fix');
  });

  it('reserve every tool of the catalogue for the runtime', () => {
    expect(RESERVED_TOOL_NAMES).toEqual(RUNTIME_TOOLS);
    expect(RESERVED_TOOL_NAMES).toContain('present_for_review');
  });
});
