/**
 * Script tools through the real runtime (docs/reference/script-tools.md): a
 * scripted model calls a blueprint's `tools/*.rhai` tools on the dev server.
 * The granted one runs in the tool activity and its result reaches the next
 * prompt; an ungranted one is refused; one that loops forever ends at its
 * limit with a coded result the next turn reads; one whose permission is
 * `ask` waits for a person's approval; one of the global tools folder runs
 * like the blueprint's own. History carries the calls, never the scripts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { DEFAULT_RUN_OPTIONS } from '../../src/runtime/types.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { runProgress, sendUpdate } from '../../src/worker/operators.js';
import { followRun, startRun } from '../../src/worker/run-client.js';
import {
  activityInputs,
  promptsSeen,
  runAgent,
  saveHistories,
  scriptedModel,
  tempDir,
  useRuntime,
  writeBlueprint,
} from './run-helpers.js';

/** A line only the scripts hold, to show that no tool call's input carries a script. */
const MARK = '// marker-7f3a: this line lives only in the script';

const TOOLS = {
  'tools/lookup_owner.rhai': `// @tool lookup_owner
// @description Name the team that owns a service
// @param service string required "the service"
${MARK}
let table = parse_json(read_file("owners.json"));
table[params.service.to_lower()] ?? "unowned"
`,
  'tools/spin.rhai': `// @tool spin
// @description Never finishes
${MARK}
let n = 0;
loop { n += 1; }
`,
  'tools/erase.rhai': `// @tool erase
// @description Not granted to the stage
write_file("erased.txt", "gone")
`,
  'tools/file_page.rhai': `// @tool file_page
// @description Files a page for a team
// @param team string required "who to page"
write_file("page.txt", \`page \${params.team}\`);
"filed"
`,
};

function blueprint(model: string, extra = ''): Blueprint {
  return writeBlueprint(
    `
[agent]
name = "script-user"
model = "${model}"
[context.regions]
task = { kind = "pinned" }
results = { kind = "temporary", max_tokens = 4000 }
[stages.main]
available_tools = ["lookup_owner", "spin", "file_page", "context_write"]
[stages.main.tool_routing]
default_region = "results"
${extra}
`,
    TOOLS,
  );
}

function workdir(): string {
  const dir = tempDir('script-work');
  writeFileSync(join(dir, 'owners.json'), JSON.stringify({ payments: 'team-billing' }));
  return dir;
}

describe('script tools in a run', () => {
  const env = useRuntime();

  it('runs a granted script, refuses an ungranted one, and stops a loop at its limit; the next turn reads each', async () => {
    const model = scriptedModel({
      turns: [
        {
          text: 'Who owns payments? And trying a tool I was not given.',
          tool_calls: [
            { name: 'lookup_owner', arguments: { service: 'Payments' } },
            { name: 'erase', arguments: {} },
          ],
        },
        { text: 'Spinning.', tool_calls: [{ name: 'spin', arguments: {} }] },
        { text: 'Bad arguments.', tool_calls: [{ name: 'lookup_owner', arguments: { service: 7 } }] },
        {
          text: 'Done.',
          tool_calls: [{ name: 'context_write', arguments: { region: 'final_output', content: 'ok' } }],
        },
        { text: 'Finished.' },
      ],
    });
    const bp = blueprint(model);
    const work = workdir();
    const { result, handle } = await runAgent(env.rt, bp, { task: 'find the owner', workdir: work });
    expect(result.status).toBe('completed');
    expect(existsSync(join(work, 'erased.txt'))).toBe(false);

    const seen = await promptsSeen(env.rt, bp, handle.workflowId);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen[1]).toContain('team-billing');
    expect(seen[1]).toContain('[tool-not-granted] stage \\"main\\" was not given the tool `erase`');
    expect(seen[0]).not.toContain('team-billing');
    expect(seen[2]).toContain('[script-tool-limit] spin was stopped: Script exceeded the maximum of 100000 operations');
    expect(seen[3]).toContain('[bad-argument] lookup_owner: `service`: must be string');

    // Each call carries the blueprint's hash and the call, never the script.
    const calls = await activityInputs(env.rt.client, handle.workflowId, 'runTool');
    expect(calls.map((c) => (c as { call: { name: string } }).call.name).sort()).toEqual([
      'lookup_owner',
      'lookup_owner',
      'spin',
    ]);
    for (const c of calls) {
      expect(JSON.stringify(c)).not.toContain('marker-7f3a');
      expect(c).toHaveProperty('blueprintHash');
    }
  });

  it('waits for approval of a script tool whose permission is ask, then runs it', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Paging.', tool_calls: [{ name: 'file_page', arguments: { team: 'team-billing' } }] },
        { text: 'Paged.' },
      ],
    });
    const bp = blueprint(model, '[stages.main.tool_permissions]\nfile_page = "ask"');
    const work = workdir();
    const handle = await startRun(
      env.rt.client,
      {
        blueprint: bp,
        task: 'page the owner',
        caller: {},
        workdir: work,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: false },
      },
      { taskQueue: env.rt.taskQueue },
    );
    let ask: { tool: string; subject: string } | undefined;
    for (let i = 0; i < 600 && !ask; i++) {
      ask = (await runProgress(env.rt.client, handle))?.asks[0];
      if (!ask) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ask).toMatchObject({ kind: 'approval', tool: 'file_page' });
    expect(existsSync(join(work, 'page.txt'))).toBe(false);
    expect(await sendUpdate(env.rt.client, handle.workflowId, 'approve', {})).toMatchObject({
      tool: 'file_page',
      decision: 'approved',
    });
    const result = await followRun(env.rt.client, handle, () => undefined, 100);
    await saveHistories(env.rt.client, handle.workflowId);
    expect(result.status).toBe('completed');
    expect(readFileSync(join(work, 'page.txt'), 'utf8')).toBe('page team-billing');
  });

  it('the example blueprints/oncall runs on the scripted model, its script tool reading the on-call table', async () => {
    const loaded = loadBlueprint('blueprints/oncall');
    if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
    const { result, handle } = await runAgent(env.rt, loaded.blueprint, {
      task: 'Read incident.log and draft the page for the team that owns the failing service.',
      workdir: join(process.cwd(), 'blueprints/oncall/workspace'),
    });
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(/^PAGE billing-primary \(team-billing\)/);
    const seen = await promptsSeen(env.rt, loaded.blueprint, handle.workflowId);
    expect(seen[2]).toContain(
      '{\\"service\\":\\"payments\\",\\"team\\":\\"team-billing\\",\\"pager\\":\\"billing-primary\\"',
    );
  });

  it('runs a tool of the global tools folder that the stage grants', async () => {
    const toolsDir = tempDir('global-tools');
    writeFileSync(
      join(toolsDir, 'shout.rhai'),
      '// @tool shout\n// @param text string required\nparams.text.to_upper()',
    );
    const model = scriptedModel({
      turns: [
        { text: 'Shouting.', tool_calls: [{ name: 'shout', arguments: { text: 'quiet words' } }] },
        { text: 'Done.' },
      ],
    });
    const dir = tempDir('bp-global');
    writeFileSync(
      join(dir, 'agent.toml'),
      `[agent]\nname = "shouter"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\nresults = { kind = "temporary", max_tokens = 4000 }\n[stages.main]\navailable_tools = ["shout"]\n[stages.main.tool_routing]\ndefault_region = "results"\n`,
    );
    const loaded = loadBlueprint(dir, { toolsDir });
    if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
    const { result, handle } = await runAgent(env.rt, loaded.blueprint, { task: 'shout' });
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'completed' });
    const seen = await promptsSeen(env.rt, loaded.blueprint, handle.workflowId);
    expect(seen[1]).toContain('QUIET WORDS');
  });
});
