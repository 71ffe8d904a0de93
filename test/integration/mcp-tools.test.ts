/**
 * MCP tools through the real runtime: a scripted model calls tools of the
 * real `@modelcontextprotocol/server-everything`, declared in the user
 * config the worker reads, and reads their results like any tool result;
 * the outsized tools of `test/mcp/fixtures/huge-server.mjs` reach the model
 * capped, and an answer too large for the transport ends its call once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { loadUserConfig } from '../../src/blueprint/user-config.js';
import { EVERYTHING_SCRIPT } from '../mcp/servers.js';

const HUGE_SCRIPT = join(import.meta.dirname, '..', 'mcp', 'fixtures', 'huge-server.mjs');

import { runAgent, scriptedModel, tempDir, useRuntime } from './run-helpers.js';

const configDir = tempDir('mcp-config');
const before = process.env.LEVIATH_CONFIG;
// The worker this file starts reads the user config through the environment, as a real one does.
process.env.LEVIATH_CONFIG = join(configDir, 'config.toml');
afterAll(() => {
  if (before === undefined) delete process.env.LEVIATH_CONFIG;
  else process.env.LEVIATH_CONFIG = before;
});
writeFileSync(
  process.env.LEVIATH_CONFIG,
  `[[mcp_servers]]
name = "everything"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(EVERYTHING_SCRIPT)}, "stdio"]
sandbox = false

[[mcp_servers]]
name = "huge"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(HUGE_SCRIPT)}]
sandbox = false
`,
);

function blueprint(model: string, grants: string, routing = 'default_region = "final_output"') {
  const dir = tempDir('bp');
  writeFileSync(
    join(dir, 'agent.toml'),
    `
[agent]
name = "mcp-user"
model = "${model}"
[context.regions]
task = { kind = "pinned" }
[stages.main]
${grants}
[stages.main.tool_routing]
${routing}
`,
  );
  const loaded = loadBlueprint(dir, { userConfig: loadUserConfig(process.env).config });
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

describe('MCP tools in a run', () => {
  const env = useRuntime();

  it('calls a tool of a server the stage was given as a connector, and routes its result', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Echoing.', tool_calls: [{ name: 'everything__echo', arguments: { message: 'hello from a run' } }] },
        { text: 'Done.' },
      ],
    });
    const bp = blueprint(model, 'available_tools = ["read_file"]\navailable_connectors = ["everything"]');
    const { result } = await runAgent(env.rt, bp, { task: 'echo something' });
    expect(result.status).toBe('completed');
    expect(result.output).toContain('Echo: hello from a run');
  });

  it('resolves a bare grant, and refuses a tool of the same server it was not given', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Adding.', tool_calls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 3 } }] },
        { text: 'Now the environment.', tool_calls: [{ name: 'everything__get-env', arguments: {} }] },
        { text: 'Done.' },
      ],
    });
    // The refusal goes to final_output, where the test reads it as the run's output.
    const bp = blueprint(
      model,
      'available_tools = ["get-sum"]',
      'default_region = "tool_results"\n[stages.main.tool_routing.overrides]\neverything__get-env = "final_output"',
    );
    const { result } = await runAgent(env.rt, bp, { task: 'add' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      '[tool-not-granted] stage "main" was not given the tool `everything__get-env`, so the call was not run. Use one of: get-sum, everything__get-sum.',
    );
  });

  it('offers an outsized tool capped, and ends a call whose answer outgrows the transport once', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Dumping.', tool_calls: [{ name: 'huge__dump', arguments: { chars: 11_000_000 } }] },
        { text: 'Done.' },
      ],
    });
    const bp = blueprint(model, 'available_tools = ["read_file"]\navailable_connectors = ["huge"]');
    const workdir = tempDir('huge-work');
    const { result } = await runAgent(env.rt, bp, { task: 'dump', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(
      /\[mcp-result-too-large\] MCP server "huge" answered `dump` with more than the 10 MiB/,
    );
    // The tool ran once: neither the pool nor the activity sent it again.
    expect(readFileSync(join(workdir, 'calls.log'), 'utf8')).toBe('dump\n');
    // The scripted model charges the whole request, tools included: with `wordy`'s 1 MB description
    // and 20,000-property schema offered uncapped, each of the two requests would be over 250,000.
    expect(result.usage.promptTokens).toBeLessThan(40_000);
  });
});
