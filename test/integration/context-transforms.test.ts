/**
 * `[[transforms]]` on the real dev server (docs/reference/sub-agents.md#context-transforms):
 * a parent that starts an agent of another blueprint hands it the regions
 * its table maps, and the child's first request reads them in its own
 * regions: copied, extracted, and summarised by the compaction summariser.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { type Content, findRegion } from '../../src/context/index.js';
import { renderPrompt } from '../../src/context/render.js';
import type { InferInput } from '../../src/runtime/node/inference.js';
import { RunStore } from '../../src/runtime/node/run-store.js';
import { CONTEXT_HANDOFFS } from '../../src/runtime/patches.js';
import { customRegionHooks } from '../../src/runtime/region-hooks.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { patchIds, runAgent, scriptedModel, type TestRuntime, useRuntime, writeBlueprint } from './run-helpers.js';

/** The first inference of `runId` and of every workflow it started, rebuilt into the region set it read. */
async function firstRequest(rt: TestRuntime, bp: Blueprint, runId: string) {
  const inputs: InferInput[] = [];
  const collect = async (workflowId: string): Promise<void> => {
    const history = await rt.client.workflow.getHandle(workflowId).fetchHistory();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      const payload = a?.input?.payloads?.[0];
      if (a?.activityType?.name === 'infer' && payload) inputs.push(defaultPayloadConverter.fromPayload(payload));
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) await collect(child);
    }
  };
  await collect(runId);
  const first = inputs.sort((a, b) => a.turn - b.turn)[0];
  if (!first) throw new Error(`${runId} made no inference`);
  const store = new RunStore({ blobDir: rt.blobDir, env: process.env });
  const state = await store.state(`${runId}-first`, bp, first.base, first.ops);
  const rendered = renderPrompt(state, bp, { now: 0, hooks: customRegionHooks(bp) }, { iteration: first.stageTurn });
  const text = async (parts: Content[]) =>
    (await Promise.all(parts.map((p) => (typeof p === 'string' ? p : store.blobs.get(p.hash))))).join('');
  const system = (await Promise.all(rendered.system.map((b) => text(b.text)))).join('\n');
  return { state, system };
}

async function historyOf(client: Client, workflowId: string) {
  return client.workflow.getHandle(workflowId).fetchHistory();
}

const FINDING = 'The parser drops trailing commas in src/parse.ts.';
const FACTS = '{"bug":"trailing commas","file":"src/parse.ts","noise":"ignore me"}';

describe('[[transforms]]', () => {
  const env = useRuntime();

  it("hands the parent's mapped regions to the child it spawns, read by the child's first request", async () => {
    const runId = `researcher-${Date.now()}`;
    const model = scriptedModel({
      turns: [
        {
          stage: 'research',
          tool_calls: [{ name: 'spawn_agent', arguments: { blueprint: 'reviewer', task: 'Review the findings.' } }],
        },
        { stage: 'research', text: 'The review is back.' },
        { stage: 'review', text: 'Reviewed.' },
      ],
    });
    const reviewer = `
[agent]
name = "reviewer"
model = "${model}"
[context.regions]
task            = { kind = "pinned", max_tokens = 500, seed = "task_input" }
source_material = { kind = "pinned", max_tokens = 2000 }
brief           = { kind = "pinned", max_tokens = 2000 }
history         = { kind = "temporary", max_tokens = 2000 }
[stages.review]
`;
    const bp = writeBlueprint(
      `
[agent]
name = "researcher"
model = "${model}"
sub_agents = ["./reviewer"]
[context.regions]
task     = { kind = "pinned", max_tokens = 500, seed = "task_input" }
findings = { kind = "pinned", max_tokens = 2000, seed = { literal = "${FINDING}" } }
facts    = { kind = "pinned", max_tokens = 2000, seed = { literal = '${FACTS}' } }
[stages.research]
available_tools = ["spawn_agent"]

[[transforms]]
from_blueprint = "researcher"
to_blueprint   = "reviewer"
[[transforms.mappings]]
from_region = "findings"
to_region   = "source_material"
transform   = "direct"
[[transforms.mappings]]
from_region = "facts"
to_region   = "brief"
transform   = "extract"
fields      = ["file", "bug"]
[[transforms.mappings]]
from_region = "task"
to_region   = "history"
transform   = "summarize"
`,
      { 'reviewer/agent.toml': reviewer },
    );
    const run = await runAgent(env.rt, bp, { task: 'Find the parser bug.', workflowId: runId });
    expect(run.result.status).toBe('completed');

    const childId = `${runId}/call_0_0`;
    const child = Object.values(bp.agents ?? {}).find((a) => a.agent.name === 'reviewer');
    if (!child) throw new Error('the reviewer is not in the catalog');
    const { state, system } = await firstRequest(env.rt, child, childId);
    const texts = (region: string) => findRegion(state, region)?.entries.map((e) => e.content);

    expect(texts('source_material')).toEqual([FINDING]);
    expect(texts('brief')).toEqual(['{\n  "file": "src/parse.ts",\n  "bug": "trailing commas"\n}']);
    // Folded by the compaction summariser (the scripted model's summary) before the first inference.
    const history = findRegion(state, 'history')?.entries ?? [];
    expect(history).toHaveLength(1);
    expect(history[0]?.summary).toBe(true);
    // The scripted model's summary of the summariser's request about the region (docs/scripted.md#other-purposes).
    expect(String(history[0]?.content)).toMatch(/^summary of 1 messages: Region "history"/);
    expect(system).toContain(FINDING);
    expect(system).toContain('"file": "src/parse.ts"');
    expect(system).not.toContain('ignore me');

    // The visit that spawned asked the patch; the parts went by the child's start.
    const visit = await historyOf(env.rt.client, `${runId}.1.research`);
    expect(patchIds(visit)).toContain(CONTEXT_HANDOFFS);
  });

  it("hands a fan-out's workers of another blueprint the mapped regions through the share they read", async () => {
    const runId = `lead-${Date.now()}`;
    const work = [
      { id: 'a', context: 'check a' },
      { id: 'b', context: 'check b' },
    ];
    const model = scriptedModel({
      turns: [
        { stage: 'split', tool_calls: [{ name: 'fan_out', arguments: { items: work } }] },
        ...work.map((w) => ({ stage: 'review', item: w.id, text: `${w.id} ok` })),
        { stage: 'merge', text: 'Merged.' },
      ],
    });
    const reviewer = `
[agent]
name = "reviewer"
model = "${model}"
[context.regions]
task            = { kind = "pinned", max_tokens = 500, seed = "task_input" }
source_material = { kind = "pinned", max_tokens = 2000 }
[stages.review]
`;
    const bp = writeBlueprint(
      `
[agent]
name = "lead"
model = "${model}"
[context.regions]
task     = { kind = "pinned", max_tokens = 500, seed = "task_input" }
findings = { kind = "pinned", max_tokens = 2000, seed = { literal = "${FINDING}" } }
results  = { kind = "temporary", max_tokens = 4000 }
[stages.split]
mode = "fan_out"
worker_agent = "./reviewer"
results_region = "results"
merge_stage = "merge"
[stages.merge]

[[transforms]]
from_blueprint = "lead"
to_blueprint   = "reviewer"
[[transforms.mappings]]
from_region = "findings"
to_region   = "source_material"
`,
      { 'reviewer/agent.toml': reviewer },
    );
    const run = await runAgent(env.rt, bp, { task: 'Review a and b.', workflowId: runId });
    expect(run.result.status).toBe('completed');
    const worker = Object.values(bp.agents ?? {})[0];
    if (!worker) throw new Error('the reviewer is not in the catalog');
    for (const w of work) {
      const { state, system } = await firstRequest(env.rt, worker, `${runId}/${w.id}`);
      expect(findRegion(state, 'source_material')?.entries.map((e) => e.content)).toEqual([FINDING]);
      expect(system).toContain(FINDING);
    }
  });

  it('hands nothing to an agent no transform maps, and asks no patch', async () => {
    const runId = `plain-parent-${Date.now()}`;
    const model = scriptedModel({
      turns: [
        { stage: 'main', tool_calls: [{ name: 'spawn_agent', arguments: { blueprint: 'helper', task: 'Help.' } }] },
        { stage: 'main', text: 'Done.' },
        { stage: 'help', text: 'Helped.' },
      ],
    });
    const bp = writeBlueprint(
      `
[agent]
name = "plain"
model = "${model}"
sub_agents = ["./helper"]
[context.regions]
task  = { kind = "pinned", max_tokens = 500, seed = "task_input" }
notes = { kind = "pinned", max_tokens = 500, seed = { literal = "private notes" } }
[stages.main]
available_tools = ["spawn_agent"]
`,
      {
        'helper/agent.toml': `[agent]\nname = "helper"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned", seed = "task_input" }\nnotes = { kind = "pinned" }\n[stages.help]\n`,
      },
    );
    const run = await runAgent(env.rt, bp, { task: 'Get help.', workflowId: runId });
    expect(run.result.status).toBe('completed');
    const visit = await historyOf(env.rt.client, `${runId}.1.main`);
    expect(patchIds(visit)).not.toContain(CONTEXT_HANDOFFS);
    const helper = Object.values(bp.agents ?? {})[0];
    if (!helper) throw new Error('the helper is not in the catalog');
    const { state } = await firstRequest(env.rt, helper, `${runId}/call_0_0`);
    expect(findRegion(state, 'notes')?.entries).toEqual([]);
  });
});
