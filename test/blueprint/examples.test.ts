import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { resolveStageBudgets, stageLayout } from '../../src/blueprint/stage-layouts.js';
import { parseUserConfig } from '../../src/blueprint/user-config.js';

describe('example blueprints', () => {
  for (const name of ['coder', 'researcher', 'demo', 'reviewer']) {
    it(`${name} passes with no warnings or notes`, () => {
      const r = loadBlueprint(`blueprints/${name}`);
      expect(r.diagnostics).toEqual([]);
      expect(r.blueprint?.agent.name).toBe(name);
    });
  }

  it('incident-brief, in the original style, passes with the warnings and notes its comments explain', () => {
    const r = loadBlueprint('blueprints/incident-brief');
    expect(r.blueprint?.agent.name).toBe('incident-brief');
    expect(r.diagnostics.map((d) => d.code)).toEqual([
      'seed-repeated-in-stage',
      'seed-caller-input',
      'seed-caller-input',
      'stage-instructions-volatility-ignored',
    ]);
    expect(r.blueprint?.stages.map((s) => s.mode ?? 'autonomous')).toEqual(['autonomous', 'autonomous', 'output']);
  });

  it('mcp-files passes once the user config declares its MCP server, and names the server otherwise', () => {
    const { config } = parseUserConfig(
      readFileSync('blueprints/mcp-files/config.example.toml', 'utf8'),
      'config.example.toml',
    );
    expect(config.mcpServers.map((s) => s.name)).toEqual(['files']);
    const r = loadBlueprint('blueprints/mcp-files', { userConfig: config });
    expect(r.diagnostics).toEqual([]);
    expect(r.blueprint?.stages[0]?.availableConnectors).toEqual(['files']);
    const bare = loadBlueprint('blueprints/mcp-files');
    expect(bare.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/lists the MCP server "files" in available_connectors, which your config does not declare/),
    ]);
  });

  it('coder has the seed layout, a gated checklist and routes file reads to codebase', () => {
    const bp = loadBlueprint('blueprints/coder').blueprint;
    if (!bp) throw new Error('coder did not load');
    expect(bp.regions.map((r) => `${r.name}:${r.kind}`)).toEqual([
      'task:pinned',
      'stage_instructions:pinned',
      'todos:checklist',
      'codebase:compacting',
      'history:compact_history',
      'scratch:temporary',
      'conversation:sliding_window',
      'tool_results:temporary',
      'final_output:pinned',
    ]);
    const implement = bp.stages.find((s) => s.name === 'implement');
    expect(implement?.transitions.find((e) => e.target === 'review')?.gate?.requireNoOpenItems).toBe('todos');
    expect(implement?.toolRouting?.overrides.read_file).toEqual({ region: 'codebase', maxResultTokens: 20000 });
    expect(implement?.toolRouting?.maxResultTokensPerTool).toEqual({ shell: 2000 });
    const plan = resolveStageBudgets(bp).find((s) => s.name === 'plan');
    expect(plan?.regions.find((r) => r.name === 'codebase')).toEqual({
      name: 'codebase',
      kind: 'compacting',
      placement: 'system',
      budgetText: '20%',
      budget: 60000,
      threshold: 48000,
    });
  });

  it('researcher keeps findings in a hashmap, admits sources by rejection and narrows the write stage', () => {
    const bp = loadBlueprint('blueprints/researcher').blueprint;
    if (!bp) throw new Error('researcher did not load');
    const byName = Object.fromEntries(bp.regions.map((r) => [r.name, r]));
    expect(byName.findings).toMatchObject({ kind: 'hashmap', maxEntries: 40, required: true });
    expect(byName.sources).toMatchObject({ kind: 'temporary', admission: 'reject' });
    expect(byName.earlier_turns).toMatchObject({ kind: 'compact_history', sourceRegion: 'conversation' });
    const write = bp.stages.find((s) => s.name === 'write');
    if (!write) throw new Error('no write stage');
    expect(stageLayout(bp, write).map((r) => r.name)).toEqual([
      'task',
      'findings',
      'conversation',
      'tool_results',
      'final_output',
      'stage_instructions',
    ]);
  });
});
