/**
 * A long unattended visit: turn after turn reads a 100 KB file into a
 * compacting region. History must grow with what changes, not with the
 * window: every run in the stage's continue-as-new chain stays far below
 * Temporal's limits and holds far less than the tool results it routed, and
 * the visit continues as new along the way (docs/reference/long-runs.md#the-run-continues-as-new),
 * here every 20 turns (`turnsPerRun`). How this scales to a thousand turns at
 * the default of 100 is measured by `npm run bench -- long` (docs/benchmarks.md).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

const TURNS = 60;
const TURNS_PER_RUN = 20;
const FILE_BYTES = 100 * 1024;

function bigFile(bytes: number): string {
  const words = ['ledger', 'billing', 'request', 'latency', 'pool', 'retry', 'charge', 'status', 'upstream', 'timeout'];
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${words[i % words.length]}-${i} ${i % 7 === 0 ? '\n' : ''}`;
  return out.slice(0, bytes);
}

describe('a long run with 100 KB tool results', () => {
  const env = useRuntime();

  it('continues as new and keeps every history in the chain under 10,000 events', async () => {
    const turns = Array.from({ length: TURNS }, (_, i) => ({
      text: `Reading pass ${i + 1}.`,
      tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }],
    }));
    const model = scriptedModel({ turns: [...turns, { text: 'Finished reading.' }] });
    const bp = writeBlueprint(`
[agent]
name = "long-reader"
model = "${model}"

[models."${model}"]
context_window = 200000

[context.regions]
task     = { kind = "pinned", budget = "2%" }
codebase = { kind = "compacting", budget = "20%", max_tokens = 60000 }
history  = { kind = "compact_history", budget = "5%", source_region = "codebase" }
conversation = { kind = "sliding_window", budget = "10%", max_tokens = 30000, max_items = 20 }

[stages.main]
available_tools = ["read_file"]
# All the turns in one visit: past the default cap of 50 (docs/reference/long-runs.md#iteration-cap).
max_iterations = 1000
[stages.main.tool_routing]
default_region = "codebase"
`);
    const workdir = tempDir('long-work');
    writeFileSync(join(workdir, 'big.txt'), bigFile(FILE_BYTES));

    const { result, handle } = await runAgent(env.rt, bp, {
      task: 'Read big.txt again and again.',
      workdir,
      options: { turnsPerRun: TURNS_PER_RUN },
    });
    expect(result.status).toBe('completed');
    expect(result.usage.calls).toBeGreaterThanOrEqual(TURNS + 1);
    const codebase = result.regions.find((r) => r.name === 'codebase')!;
    expect(codebase.tokens).toBeLessThanOrEqual(codebase.budget);
    expect(result.regions.find((r) => r.name === 'history')!.tokens).toBeGreaterThan(0);

    const stageId = `${handle.workflowId}.1.main`;
    const chain: { events: number; bytes: number }[] = [];
    for await (const wf of env.conn.client.workflow.list({ query: `WorkflowId = '${stageId}'` })) {
      const history = await env.conn.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      const events = history.events ?? [];
      chain.push({
        events: events.length,
        bytes: proto.temporal.api.history.v1.History.encode(history).finish().length,
      });
    }
    const parent = (await handle.fetchHistory()).events?.length ?? 0;
    const totalBytes = chain.reduce((a, r) => a + r.bytes, 0);
    process.stdout.write(
      `long run: ${chain.length} stage-workflow runs, events per run ${chain.map((r) => r.events).join(', ')}, parent ${parent} events, ` +
        `${Math.round(totalBytes / TURNS)} history bytes per turn\n`,
    );
    expect(chain.length).toBeGreaterThanOrEqual(TURNS / TURNS_PER_RUN);
    for (const run of chain) expect(run.events).toBeLessThan(10_000);
    expect(parent).toBeLessThan(10_000);
    // A turn's 100 KB result lives in the blob store: history holds a reference and the operations
    // the visit applied (about 11 KB a turn), never the result itself.
    expect(totalBytes / TURNS).toBeLessThan(FILE_BYTES / 2);
  });
});
