/**
 * `[agent] dynamic_tools` through the real runtime
 * (docs/reference/script-tools.md#tools-a-run-writes): a scripted model
 * writes `tools/shout.rhai` into its workdir with `write_file`; the tool is
 * not offered on the turn that wrote it (a call then is
 * `dynamic-tool-missing`), is offered on the next, and its call runs the
 * script. With the key off, the stage cannot list the name, is never
 * offered the tool, and no scan runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedCalls } from '../../src/providers/index.js';
import {
  activityInputs,
  promptsSeen,
  runAgent,
  scriptedModel,
  tempDir,
  useRuntime,
  writeBlueprint,
} from './run-helpers.js';

const SHOUT =
  '// @tool shout\n// @description Says the text loudly\n// @param text string required\nparams.text.to_upper()';

function blueprint(model: string, dynamic: boolean) {
  return writeBlueprint(`
[agent]
name = "tool-writer"
model = "${model}"
${dynamic ? 'dynamic_tools = true' : ''}
[context.regions]
task = { kind = "pinned" }
results = { kind = "temporary", max_tokens = 4000 }
[stages.main]
available_tools = ["write_file", "context_write"${dynamic ? ', "shout"' : ''}]
[stages.main.tool_routing]
default_region = "results"
`);
}

function writer(): string {
  return scriptedModel({
    turns: [
      {
        text: 'Writing a tool, and calling it too soon.',
        tool_calls: [
          { name: 'write_file', arguments: { path: 'tools/shout.rhai', content: SHOUT } },
          { name: 'shout', arguments: { text: 'early' } },
        ],
      },
      { text: 'Calling it.', tool_calls: [{ name: 'shout', arguments: { text: 'hello there' } }] },
      {
        text: 'Done.',
        tool_calls: [{ name: 'context_write', arguments: { region: 'final_output', content: 'ok' } }],
      },
      { text: 'Finished.' },
    ],
  });
}

function offered(runId: string): string[][] {
  return scriptedCalls()
    .filter((c) => c.runId.startsWith(runId) && c.purpose === 'turn')
    .sort((a, b) => a.turn - b.turn)
    .map((c) => c.tools);
}

describe('tools a run writes', () => {
  const env = useRuntime();

  it('offers a script written into the workdir on the next turn, and its call runs it', async () => {
    const bp = blueprint(writer(), true);
    expect(bp.stages[0]?.dynamicTools).toEqual(['shout']);
    const work = tempDir('dyn-work');
    const { result, handle } = await runAgent(env.rt, bp, { task: 'make a tool', workdir: work });
    expect(result.status).toBe('completed');
    expect(existsSync(join(work, 'tools/shout.rhai'))).toBe(true);

    const tools = offered(handle.workflowId);
    expect(tools[0]).not.toContain('shout');
    expect(tools[1]).toContain('shout');
    const seen = await promptsSeen(env.rt, bp, handle.workflowId);
    expect(seen[1]).toContain('[dynamic-tool-missing] `shout` was not offered on this turn');
    expect(seen[2]).toContain('HELLO THERE');
    // One scan per turn, each a hash at most: the declarations travel as a blob.
    const scans = await activityInputs(env.rt.client, handle.workflowId, 'scanTools');
    expect(scans.length).toBe(tools.length);
    const calls = (await activityInputs(env.rt.client, handle.workflowId, 'runTool')) as {
      call: { name: string };
      written?: string;
    }[];
    const shouts = calls.filter((c) => c.call.name === 'shout');
    expect(shouts[0]?.written).toBeUndefined();
    expect(shouts[1]?.written).toMatch(/^[0-9a-f]{64}$/);
  });

  it('with dynamic_tools off, never offers the written script, refuses its call, and scans nothing', async () => {
    const bp = blueprint(writer(), false);
    expect(bp.stages[0]?.dynamicTools).toBeUndefined();
    const work = tempDir('dyn-off');
    const { result, handle } = await runAgent(env.rt, bp, { task: 'make a tool', workdir: work });
    expect(result.status).toBe('completed');
    expect(existsSync(join(work, 'tools/shout.rhai'))).toBe(true);
    for (const tools of offered(handle.workflowId)) expect(tools).not.toContain('shout');
    const seen = await promptsSeen(env.rt, bp, handle.workflowId);
    expect(seen[2]).toContain('[tool-not-granted] stage \\"main\\" was not given the tool `shout`');
    expect(seen[2]).not.toContain('HELLO THERE');
    expect(await activityInputs(env.rt.client, handle.workflowId, 'scanTools')).toEqual([]);
  });
});
