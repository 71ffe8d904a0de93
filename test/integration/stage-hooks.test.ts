/**
 * Stage hooks in a run (docs/reference/stage-hooks.md): on the scripted
 * model, `on_tool_call` rewrites a call before the tool runs and refuses
 * another, ending the run with `stage-hook-failed`; `after_inference`
 * rewrites the text the run ends with; `on_completion` and `on_error`
 * rewrite the run's output and its error; `on_stage_enter` seeds a region
 * the first prompt shows, `on_stage_exit` rewrites one the next stage reads,
 * and `before_inference` refuses an inference.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedCalls } from '../../src/providers/index.js';
import { runAgent, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

const HOOKS = `
fn on_tool_call(ctx) {
    let out = [];
    for c in ctx.tool_calls {
        if c.name == "shell" { return #{ action: "cancel", reason: "this stage does not run commands" }; }
        if c.name == "write_file" { c.arguments.path = "tamed.txt"; }
        out.push(c);
    }
    #{ action: "modify", value: out }
}

fn after_inference(ctx) {
    #{ action: "modify", value: ctx.response.to_upper() }
}
`;

function blueprint(model: string): ReturnType<typeof writeBlueprint> {
  return writeBlueprint(
    `[agent]\nname = "hooked"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\n[stages.work]\navailable_tools = ["write_file", "shell"]\n[stages.work.hooks]\non_tool_call = "hooks/guard.rhai"\nafter_inference = "hooks/guard.rhai"\n`,
    { 'hooks/guard.rhai': HOOKS },
  );
}

describe('stage hooks in a run', () => {
  const env = useRuntime();

  it('on_tool_call rewrites a call before it runs, and after_inference the final text', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Writing.', tool_calls: [{ name: 'write_file', arguments: { path: 'wild.txt', content: 'x' } }] },
        { text: 'done quietly.' },
      ],
    });
    const work = tempDir('hook-work');
    const run = await runAgent(env.rt, blueprint(model), { task: 'Write a file.', workdir: work });
    expect(run.result.status).toBe('completed');
    expect(existsSync(join(work, 'tamed.txt'))).toBe(true);
    expect(existsSync(join(work, 'wild.txt'))).toBe(false);
    expect(run.result.output).toBe('DONE QUIETLY.');
  });

  it('a refusal ends the run with stage-hook-failed, and the command never runs', async () => {
    const model = scriptedModel({
      turns: [{ text: 'Running.', tool_calls: [{ name: 'shell', arguments: { command: 'touch ran.txt' } }] }],
    });
    const work = tempDir('hook-work');
    const run = await runAgent(env.rt, blueprint(model), { task: 'Run something.', workdir: work });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('on_tool_call refused: this stage does not run commands');
    expect(existsSync(join(work, 'ran.txt'))).toBe(false);
  });

  it('on_completion rewrites the submitted answer, and on_error the message of a failed run', async () => {
    const TERMINAL = `
fn on_completion(ctx) { #{ action: "modify", value: ctx.output + " [checked]" } }
fn on_error(ctx) { #{ action: "modify", value: "The run failed: " + ctx.error } }
fn on_tool_call(ctx) { if ctx.tool_calls[0].name == "shell" { false } else { () } }
`;
    const bp = (model: string) =>
      writeBlueprint(
        `[agent]\nname = "ends"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\n[stages.answer]\nmode = "output"\navailable_tools = ["shell"]\n[stages.answer.hooks]\non_completion = "hooks/end.rhai"\non_error = "hooks/end.rhai"\non_tool_call = "hooks/end.rhai"\n`,
        { 'hooks/end.rhai': TERMINAL },
      );
    const answers = scriptedModel({
      turns: [{ text: 'Answering.', tool_calls: [{ name: 'submit_output', arguments: { content: '42' } }] }],
    });
    const done = await runAgent(env.rt, bp(answers), { task: 'Six times seven?' });
    expect(done.result.status).toBe('completed');
    expect(done.result.output).toBe('42 [checked]');

    const shells = scriptedModel({
      turns: [{ text: 'Shell.', tool_calls: [{ name: 'shell', arguments: { command: 'true' } }] }],
    });
    const failed = await runAgent(env.rt, bp(shells), { task: 'Six times seven?' });
    expect(failed.result.status).toBe('failed');
    expect(failed.result.error).toMatch(/^The run failed: .*on_tool_call refused: no reason given/);
  });

  it('on_stage_enter and on_stage_exit write regions; before_inference may refuse an inference', async () => {
    const REGIONS = `
fn on_stage_enter(ctx) { #{ action: "modify", value: #{ notes: "Seeded for " + ctx.stage } } }
fn on_stage_exit(ctx) { #{ action: "modify", value: #{ notes: ctx.regions.notes + " / left " + ctx.stage } } }
fn before_inference(ctx) {
    if ctx.regions.notes.contains("left") { #{ action: "cancel", reason: "the notes say we are done" } } else { () }
}
`;
    const model = scriptedModel({ turns: [{ text: 'First stage done.' }, { text: 'Never asked for.' }] });
    const bp = writeBlueprint(
      `[agent]\nname = "regions"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\nnotes = { kind = "pinned" }\n[stages.first.hooks]\non_stage_enter = "hooks/r.rhai"\non_stage_exit = "hooks/r.rhai"\n[stages.first.transitions.second]\ncondition = "always"\n[stages.second.hooks]\nbefore_inference = "hooks/r.rhai"\n`,
      { 'hooks/r.rhai': REGIONS },
    );
    const run = await runAgent(env.rt, bp, { task: 'Go.' });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('before_inference refused: the notes say we are done');
    const notes = run.result.regions.find((r) => r.name === 'notes');
    expect(notes?.entries).toBe(1);
    const turns = scriptedCalls().filter((c) => c.runId.startsWith(run.handle.workflowId) && c.purpose === 'turn');
    expect(turns.map((c) => c.stage)).toEqual(['first']);
  });
});
