/**
 * A worker process is SIGKILLed while an MCP tool call runs on it (a long
 * operation of the real server-everything). The call is retried on a second
 * worker, which starts its own server process, and the run completes with
 * the result and the retry note.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import { EVERYTHING_SCRIPT } from '../mcp/servers.js';
import { connectClient } from './helpers.js';
import { saveHistories, tempDir } from './run-helpers.js';
import { startWorkerProcess, workerEnv } from './worker-processes.js';

const CONFIG = `[[mcp_servers]]
name = "everything"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(EVERYTHING_SCRIPT)}, "stdio"]
sandbox = false
`;

const SCRIPT = `
[[turns]]
text = "Starting the long operation."
[[turns.tool_calls]]
name = "everything__trigger-long-running-operation"
arguments = { duration = 6, steps = 3 }

[[turns]]
text = "Done."
`;

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
    const configFile = join(tempDir('mcp-kill-config'), 'config.toml');
    writeFileSync(configFile, CONFIG);
    const dir = tempDir('mcp-kill-bp');
    writeFileSync(join(dir, 'script.toml'), SCRIPT);
    writeFileSync(
      join(dir, 'agent.toml'),
      `[agent]
name = "mcp-kill"
model = "scripted:script.toml"
[context.regions]
task = { kind = "pinned" }
[stages.main]
available_connectors = ["everything"]
available_tools = ["context_read"]
[stages.main.tool_routing]
default_region = "final_output"
`,
    );
    const loaded = loadBlueprint(dir, { userConfig: parseUserConfig(CONFIG, configFile).config });
    if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
    const options = { ...DEFAULT_RUN_OPTIONS, heartbeatTimeoutSecs: 2 };
    const queue = `mcp-kill-${Date.now()}`;
    const env = { ...workerEnv(queue, tempDir('mcp-kill-blobs')), LEVIATH_CONFIG: configFile };
    const first = await startWorkerProcess(env);
    workers.push(first);
    const handle = await startRun(
      conn.client,
      {
        blueprint: loaded.blueprint,
        task: 'run the long operation',
        caller: {},
        workdir: tempDir('mcp-kill-work'),
        options,
      },
      { taskQueue: queue },
    );
    const stage = `${handle.workflowId}.1.main`;
    const STARTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
    let inFlight = false;
    while (!inFlight) {
      const described = await conn.client.workflow
        .getHandle(stage)
        .describe()
        .catch(() => undefined);
      inFlight = (described?.raw.pendingActivities ?? []).some(
        (a) => a.activityType?.name === 'runTool' && a.state === STARTED,
      );
      if (!inFlight) await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    workers.push(await startWorkerProcess(env));
    const result = await followRun(conn.client, handle, () => {});
    await saveHistories(conn.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(result.output).toContain('Long running operation completed. Duration: 6 seconds, Steps: 3.');
    // Attempt 2 or later: the heartbeat timeout may expire once more while the second worker boots.
    expect(result.output).toMatch(
      /note: this call is a retry \(attempt [2-9]\); an earlier attempt may already have run\./,
    );
  });
});
