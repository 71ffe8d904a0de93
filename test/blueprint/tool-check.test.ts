/**
 * `available_tools` with `[agent] dynamic_tools` (docs/reference/script-tools.md#tools-a-run-writes):
 * a name no tool answers is a script the run may write, kept on the stage and
 * recorded as such; every other name is checked as without the key.
 */
import { describe, expect, it } from 'vitest';
import { emptyUserConfig } from '../../src/blueprint/user-config.js';
import { mcpGrants, needsDiscovery } from '../../src/runtime/mcp-grants.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const AGENT = (dynamic: string, tools: string) =>
  `[agent]\nname = "w"\n${dynamic}\n[stages.a]\navailable_tools = [${tools}]`;
const userConfig = {
  ...emptyUserConfig(),
  mcpServers: [
    { name: 'files', command: 'true', args: [], env: {}, headers: {}, sandbox: true, readPaths: [], timeoutSecs: 60 },
  ],
};

describe('available_tools with dynamic_tools', () => {
  it('keeps a name no tool answers as a tool the run may write, without a warning', () => {
    const r = loadToml(AGENT('dynamic_tools = true', '"read_file", "shout"'));
    expect(codesOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['read_file', 'shout']);
    expect(r.blueprint?.stages[0]?.dynamicTools).toEqual(['shout']);
  });

  it('is no MCP grant, so the stage asks no server, even with servers configured', () => {
    const r = loadToml(AGENT('dynamic_tools = true', '"shout", "files__read"'), {}, { userConfig });
    if (!r.blueprint) throw new Error(errorsOf(r).join('\n'));
    expect(r.blueprint.stages[0]?.dynamicTools).toEqual(['shout']);
    expect(mcpGrants(r.blueprint, 'a').tools).toEqual(['files__read']);
    const alone = loadToml(AGENT('dynamic_tools = true', '"shout"'), {}, { userConfig });
    if (!alone.blueprint) throw new Error(errorsOf(alone).join('\n'));
    expect(needsDiscovery(alone.blueprint, 'a')).toBe(false);
  });

  it('leaves the names something else answers, and checks the rest as before', () => {
    const r = loadToml(AGENT('dynamic_tools = true', '"own", "read_files", "gh__issue", "a b"'), {
      'tools/own.rhai': '// @tool own\n1',
    });
    expect(r.blueprint?.stages[0]?.dynamicTools).toBeUndefined();
    expect(codesOf(r).sort()).toEqual(['unknown-tool', 'unknown-tool', 'unsupported-feature']);
  });

  it('off (the default, or false): the name is unknown-tool, and the stage records no such names', () => {
    for (const line of ['', 'dynamic_tools = false']) {
      const r = loadToml(AGENT(line, '"shout"'));
      expect(codesOf(r)).toEqual(['unknown-tool']);
    }
    const plain = loadToml(AGENT('dynamic_tools = true', '"read_file"'));
    expect(plain.blueprint?.stages[0]).not.toHaveProperty('dynamicTools');
  });
});
