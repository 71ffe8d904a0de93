/**
 * A worker process is SIGKILLed while an MCP tool call runs on it: the call
 * waits at a gate of a real MCP server over stdio (fixtures/gated-mcp-server.mjs,
 * docs/scripted.md#gates), so it is in flight by arrangement. The call is
 * retried on a second worker, which starts its own server process, and the
 * run completes with the result and the retry note.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { connectClient } from './helpers.js';
import { saveHistories, tempDir } from './run-helpers.js';
import { startStandbyWorker, startWorkerProcess, workerEnv } from './worker-processes.js';

const GATED_SERVER = join(import.meta.dirname, 'fixtures', 'gated-mcp-server.mjs');

function config(gates: string): string {
  return `[[mcp_servers]]
name = "gated"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(GATED_SERVER)}, ${JSON.stringify(gates)}]
sandbox = false
`;
}

function script(gate: string): string {
  return `
[[turns]]
text = "Waiting at the gate."
[[turns.tool_calls]]
name = "gated__wait_at_gate"
arguments = { gate = "${gate}" }

[[turns]]
text = "Done."
`;
}

describe('a worker killed during an MCP call', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    conn = await connectClient();
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await conn?.connection.close();
  });

  it('runs the call again on another worker, which starts its own server', async () => {
    const gate = `mcp-kill-${process.pid}-${Date.now()}`;
    const gates = tempDir('mcp-kill-gates');
    const configFile = join(tempDir('mcp-kill-config'), 'config.toml');
    writeFileSync(configFile, config(gates));
    const dir = tempDir('mcp-kill-bp');
    writeFileSync(join(dir, 'script.toml'), script(gate));
    writeFileSync(
      join(dir, 'agent.toml'),
      `[agent]
name = "mcp-kill"
model = "scripted:script.toml"
[context.regions]
task = { kind = "pinned" }
[stages.main]
available_connectors = ["gated"]
available_tools = ["context_read"]
[stages.main.tool_routing]
default_region = "final_output"
`,
    );
    const loaded = loadBlueprint(dir, { userConfig: parseUserConfig(config(gates), configFile).config });
    if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2 };
    const queue = `mcp-kill-${Date.now()}`;
    const env = { ...workerEnv(queue, tempDir('mcp-kill-blobs')), LEVIATH_CONFIG: configFile };
    // The second worker boots while the run goes on and polls only once the first is dead.
    const [first, second] = await Promise.all([startWorkerProcess(env), startStandbyWorker(env)]);
    workers.push(first, second.child);
    const handle = await startRun(
      conn.client,
      {
        blueprint: loaded.blueprint,
        task: 'run the gated call',
        caller: {},
        workdir: tempDir('mcp-kill-work'),
        options,
      },
      { taskQueue: queue },
    );
    await gateReached(gate, { dir: gates });
    first.kill('SIGKILL');
    second.poll();
    openGate(gate, gates);
    const result = await followRun(conn.client, handle, () => {});
    await saveHistories(conn.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.output).toContain(`Passed gate ${gate}.`);
    // Attempt 2 or later: on a loaded machine the retry may miss its 2 s heartbeat once more.
    expect(result.output).toMatch(
      /note: this call is a retry \(attempt [2-9]\); an earlier attempt may already have run\./,
    );
  });
});
