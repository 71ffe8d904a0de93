/**
 * What a tool result looks like by the time the model reads it, through the
 * real runtime: a failing path tool that names a context region gets a hint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from './helpers.js';
import { type TestRuntime, runAgent, scriptedModel, startRuntime, writeBlueprint } from './run-helpers.js';

describe('tool results', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  beforeAll(async () => {
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
  });

  it('tells the model that a path naming a region is a context region, not a file', async () => {
    const model = scriptedModel({
      turns: [{ text: 'Reading my findings.', tool_calls: [{ name: 'read_file', arguments: { path: 'findings' } }] }, { text: 'Done.' }],
    });
    // Routing read_file into final_output makes the stored result the run's output, where the test can read it.
    const bp = writeBlueprint(`
[agent]
name = "hinted"
model = "${model}"
[context.regions]
task     = { kind = "pinned" }
findings = { kind = "hashmap" }
[stages.main.tool_routing]
default_region = "tool_results"
[stages.main.tool_routing.overrides]
read_file = "final_output"
`);
    const { result } = await runAgent(rt, bp, { task: 'look at the findings' });
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(/^\[[a-z-]+\] /);
    expect(result.output).toContain('findings is a context region already in your prompt, not a file; use context_read');
  });
});
