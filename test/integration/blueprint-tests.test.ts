/**
 * `lev test` sends what a live run sends on its first turn
 * (docs/reference/blueprint-tests.md#what-a-case-sends): the same blueprint
 * run for real on the dev server and tested with `lev test`, both against a
 * local HTTP server speaking the OpenAI wire format, and the two first
 * request bodies compared.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBlueprintTests } from '../../src/cli/blueprint-tests.js';
import { chatCompletion, startWireServer, type WireServer } from '../providers/wire-server.js';
import { connectClient } from './helpers.js';
import { runAgent, scopedEnv, startRuntime, type TestRuntime, tempDir, writeBlueprint } from './run-helpers.js';

const AGENT = `
[agent]
name = "first-turn"
model = "openai:gpt-4o"
entry_stage = "triage"

[context.regions]
task               = { kind = "pinned", max_tokens = 500 }
stage_instructions = { kind = "pinned", max_tokens = 500 }
house_rules        = { kind = "pinned", max_tokens = 300, seed = { literal = "Answer in one sentence." } }
todos              = { kind = "checklist", max_tokens = 400, describe_in_prompt = true, description = "What is left to do." }
notes              = { kind = "temporary", max_tokens = 1000 }

[stages.triage]
system_prompt = "Triage the report: say what is broken."
available_tools = ["read_file", "context_append", "todo_add"]
`;

const TASK = 'The nightly export stopped writing files after the upgrade.';

describe('lev test against a live first turn', () => {
  const vars = scopedEnv();
  let wire: WireServer;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;

  beforeAll(async () => {
    wire = await startWireServer(() => ({ json: chatCompletion({ content: 'The export job is broken.' }) }));
    vars.set({ OPENAI_BASE_URL: `${wire.url}/v1`, OPENAI_API_KEY: 'sk-first-turn' });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
    await wire?.close();
    vars.restore();
  });

  it('sends the request body a run sends on its first turn, and checks the reply', async () => {
    const bp = writeBlueprint(AGENT);
    const run = await runAgent(rt, bp, { task: TASK, workdir: tempDir('first-turn-work') });
    expect(run.result.status).toBe('completed');
    const live = wire.requests[0]!.body;

    mkdirSync(join(bp.dir, 'tests'));
    writeFileSync(
      join(bp.dir, 'tests', 'triage.toml'),
      `[[test]]\nname = "names the export"\ninput = "${TASK}"\nexpect_contains = "export job"\n`,
    );
    wire.requests.length = 0;
    const report = await runBlueprintTests(bp, { env: process.env });
    expect(report.results).toMatchObject([{ name: 'names the export', ok: true }]);
    expect(wire.requests).toHaveLength(1);
    const tested = wire.requests[0]!.body;

    expect(tested.messages).toEqual(live.messages);
    expect(tested.tools).toEqual(live.tools);
    // Everything else too, but the prompt cache key, which is made from the run's id.
    const { prompt_cache_key: testedKey, ...testedRest } = tested;
    const { prompt_cache_key: liveKey, ...liveRest } = live;
    expect(testedRest).toEqual(liveRest);
    expect(typeof testedKey === 'string' && typeof liveKey === 'string').toBe(true);
    // The seeded rule, the task and the stage's instructions are all there.
    const system = JSON.stringify(tested.messages);
    for (const text of [TASK, 'Answer in one sentence.', 'Triage the report: say what is broken.'])
      expect(system).toContain(text);
  });
});
