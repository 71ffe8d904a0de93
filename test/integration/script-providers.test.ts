/**
 * A stage on a script provider through the real runtime on the dev server
 * (docs/reference/script-providers.md): `provider = "compat"` is the script
 * providers/compat.rhai, which talks real HTTP to a local OpenAI-compatible
 * server. The server fails the first request with a 503, which the runtime
 * retries; the model then reads a file with a tool and writes the answer.
 * The script's settings come from `[model_providers.compat]` of the worker's
 * config, so its key never reaches workflow history.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { chatCompletion, startWireServer, type WireServer } from '../providers/wire-server.js';
import { connectClient } from './helpers.js';
import { runAgent, scopedEnv, startRuntime, type TestRuntime, tempDir } from './run-helpers.js';

const KEY = 'sk-compat-51c0e7d2a9';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

const BLUEPRINT = `
[agent]
name = "script-provider-e2e"

[context.regions]
task               = { kind = "pinned", max_tokens = 500 }
stage_instructions = { kind = "pinned", max_tokens = 500 }
final_output       = { kind = "pinned", max_tokens = 1000 }

[stages.work]
system_prompt = "Read the spec and write the answer to final_output."
available_tools = ["read_file", "context_write"]

[stages.work.model]
provider = "compat"
model    = "compat-small"
parameters = { temperature = 0.1 }
`;

describe('a run on a script provider', () => {
  const vars = scopedEnv();
  let server: WireServer;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let rt: TestRuntime;
  let providersDir: string;

  beforeAll(async () => {
    const replies = [
      { status: 503, json: { error: { message: 'warming up' } } },
      {
        json: chatCompletion(
          { content: 'Reading the spec.', tool_calls: [call('c_read', 'read_file', { path: 'spec.md' })] },
          'tool_calls',
        ),
      },
      {
        json: chatCompletion(
          {
            content: '',
            tool_calls: [call('c_write', 'context_write', { region: 'final_output', content: 'The answer is 42.' })],
          },
          'tool_calls',
        ),
      },
      { json: chatCompletion({ content: 'Done.' }) },
    ];
    server = await startWireServer(() => ({ json: chatCompletion({ content: 'Nothing more.' }) }));
    server.respond(() => replies[server.requests.length - 1] ?? { json: chatCompletion({ content: 'Done.' }) });
    providersDir = tempDir('providers');
    copyFileSync(
      join(import.meta.dirname, '..', 'providers', 'fixtures', 'compat.rhai'),
      join(providersDir, 'compat.rhai'),
    );
    const configDir = tempDir('config');
    mkdirSync(configDir, { recursive: true });
    const config = join(configDir, 'config.toml');
    writeFileSync(config, `[model_providers.compat]\nbase_url = "${server.url}/v1"\napi_key = "${KEY}"\ntag = "e2e"\n`);
    vars.set({ LEVIATH_CONFIG: config });
    conn = await connectClient();
    rt = await startRuntime(conn.client);
  });
  afterAll(async () => {
    await rt?.stop();
    await conn?.connection.close();
    await server?.close();
    vars.restore();
  });

  it('retries a transient failure, runs the tool call, and writes the answer', async () => {
    const dir = tempDir('bp');
    writeFileSync(join(dir, 'agent.toml'), BLUEPRINT);
    const loaded = loadBlueprint(dir, { providersDir });
    const bp = loaded.blueprint;
    if (!bp) throw new Error(loaded.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
    expect(bp.providerScripts?.map((p) => p.name)).toEqual(['compat']);

    const workdir = tempDir('work');
    writeFileSync(join(workdir, 'spec.md'), 'Spec: every answer in this project is 42.\n');
    const task = 'Find the answer the spec prescribes.';
    const run = await runAgent(rt, bp, { task, workdir });

    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('The answer is 42.');
    // The 503, its retry, the turn after the read, the turn after the write.
    expect(server.requests).toHaveLength(4);
    for (const r of server.requests) {
      expect(r.url).toBe('/v1/chat/completions');
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.body).toMatchObject({ model: 'compat-small', temperature: 0.1, tag: 'e2e' });
    }
    const [, first, second] = server.requests;
    expect(first?.body.messages[0]).toMatchObject({ role: 'system' });
    expect(first?.body.messages[0].content).toContain(task);
    expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
      'context_write',
      'read_file',
    ]);
    // The script turned Leviath's tool_use and tool_result blocks into the chat API's tool messages.
    const msgs = second?.body.messages as {
      role: string;
      content: string;
      tool_call_id?: string;
      tool_calls?: unknown[];
    }[];
    const asked = msgs.findIndex((m) => m.role === 'assistant' && m.tool_calls);
    expect(msgs[asked]?.tool_calls).toEqual([call('c_read', 'read_file', { path: 'spec.md' })]);
    expect(msgs[asked + 1]).toMatchObject({ role: 'tool', tool_call_id: 'c_read' });
    expect(msgs[asked + 1]?.content).toContain('every answer in this project is 42');
    // Usage is the server's, as the script reported it.
    expect(run.result.usage).toMatchObject({ calls: 3, promptTokens: 360, completionTokens: 21 });

    // The key stays in the worker's config: history never carries it.
    const bytes = Buffer.from(
      temporal.api.history.v1.History.encode(
        await conn.client.workflow.getHandle(`${run.handle.workflowId}.1.work`).fetchHistory(),
      ).finish(),
    );
    expect(bytes.includes(task)).toBe(true);
    expect(bytes.includes(KEY)).toBe(false);
  });
});
