/**
 * Output validators in a run (docs/reference/blueprint.md#output-validators):
 * the scripted model submits an answer the blueprint's Rhai validator
 * refuses, reads why, and submits one it takes; the run's result is the
 * second answer.
 */
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

const VALIDATOR = `
fn validate(content) {
    let doc = parse_json(content);
    if doc.root == () { return "an a2ui document needs a \`root\` node"; }
    ()
}`;

describe('output validators in a run', () => {
  const env = useRuntime();

  it('refuses what the validator refuses, and the run ends with the answer it takes', async () => {
    const good = '{"root":{"component":"Card"}}';
    const model = scriptedModel({
      turns: [
        { text: 'First try.', tool_calls: [{ name: 'submit_output', arguments: { content: '{"card":1}' } }] },
        { text: 'With a root.', tool_calls: [{ name: 'submit_output', arguments: { content: good } }] },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "presenter"\nmodel = "${model}"\n[stages.present]\nmode = "output"\n[stages.present.output]\nformat = "a2ui"\nvalidator = "validators/a2ui.rhai"\n`,
      { 'validators/a2ui.rhai': VALIDATOR },
    );

    const run = await runAgent(env.rt, bp, { task: 'Show a card.' });

    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe(good);
    expect(run.result.outputFormat).toBe('a2ui');
    expect(run.result.diagnostics.map((d) => d.code)).not.toContain('output-forced');
  });
});
