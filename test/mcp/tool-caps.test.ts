/**
 * What an MCP server may put in front of the model (`src/mcp/tool-caps.ts`), and how a request
 * offering MCP tools counts them (`src/runtime/node/mcp-tools.ts`), against the outsized tools of
 * `fixtures/huge-server.mjs` listed by a real connection.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpPool } from '../../src/mcp/pool.js';
import { capListedTool, MAX_MCP_DESCRIPTION_CHARS, MAX_MCP_SCHEMA_CHARS } from '../../src/mcp/tool-caps.js';
import { discoverCatalog, mcpSpecTokens, mcpToolSpecs, requestPromptTokens } from '../../src/runtime/node/mcp-tools.js';
import { stdioServer } from './servers.js';

const pool = new McpPool();
afterAll(() => pool.closeAll());

describe('MCP tool caps', () => {
  it('cuts a description over the cap and says so in it', () => {
    const { tool, trimmed } = capListedTool({ name: 't', description: 'x'.repeat(10_000), inputSchema: {} });
    expect(tool.description.length).toBeLessThan(MAX_MCP_DESCRIPTION_CHARS + 100);
    expect(tool.description).toMatch(/\n\[mcp-tool-trimmed\] the description was cut at 4,000 of 10,000 characters\.$/);
    expect(trimmed).toEqual(['the description was cut at 4,000 of 10,000 characters']);
  });

  it('keeps a tool within its caps as it is', () => {
    const listed = { name: 't', description: 'Says hi.', inputSchema: { type: 'object', description: 'kept' } };
    expect(capListedTool(listed)).toEqual({ tool: listed, trimmed: [] });
  });

  it("drops a large schema's explanations first, keeping properties of any name", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(100) }]),
    );
    properties.description = { type: 'string', description: 'a property named description' };
    const { tool, trimmed } = capListedTool({
      name: 't',
      description: 'ok',
      inputSchema: { type: 'object', title: 'T', properties, required: ['p1'] },
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string' }])),
        description: { type: 'string' },
      },
      required: ['p1'],
    });
    expect(trimmed[0]).toMatch(/lost its descriptions, titles and examples$/);
  });

  it('replaces a schema still over the cap by an open object that says why', async () => {
    const huge = stdioServer('huge', join(import.meta.dirname, 'fixtures', 'huge-server.mjs'), []);
    const catalog = await discoverCatalog([huge], { workdir: mkdtempSync(join(tmpdir(), 'lev-caps-')) }, pool);
    const wordy = catalog.tools.find((t) => t.tool === 'wordy')!;
    expect(wordy.description.length).toBeLessThan(MAX_MCP_DESCRIPTION_CHARS + 100);
    expect(wordy.description).toContain('[mcp-tool-trimmed] the description was cut at 4,000 of 1,000,027 characters');
    expect(JSON.stringify(wordy.parameters).length).toBeLessThan(MAX_MCP_SCHEMA_CHARS);
    expect(wordy.parameters).toMatchObject({ type: 'object', additionalProperties: true });
    expect(String(wordy.parameters.description)).toMatch(
      /^\[mcp-tool-trimmed\] the input schema \([\d,]+ characters\)/,
    );
    expect(wordy.trimmed).toHaveLength(2);
    expect(catalog.tools.find((t) => t.tool === 'dump')?.trimmed).toBeUndefined();

    // Offered to the model, the capped specs are counted into the request.
    const specs = mcpToolSpecs(catalog, ['huge__wordy']);
    const count = (text: string) => Math.ceil(text.length / 4);
    const tokens = mcpSpecTokens(specs, count);
    expect(tokens).toBe(count(JSON.stringify(specs)));
    expect(tokens).toBeLessThan((MAX_MCP_DESCRIPTION_CHARS + MAX_MCP_SCHEMA_CHARS) / 4);
  });

  it("counts a request's prompt with its MCP specs when the provider reports none", () => {
    expect(requestPromptTokens(undefined, 6, 1200)).toBe(1206);
    expect(requestPromptTokens(5000, 6, 1200)).toBe(5000);
    expect(requestPromptTokens(undefined, 6, 0)).toBeUndefined();
    expect(mcpSpecTokens([], () => 99)).toBe(0);
  });
});
