/**
 * The empty-response nudge in a run (docs/reference/stages.md#the-empty-response-nudge):
 * a stage with `[agent.nudge]` whose model answers in text before calling a
 * tool is told to use its tools and runs on, `max` times at most; once it
 * called a tool, a reply without calls ends it as before.
 */
import { describe, expect, it } from 'vitest';
import { scriptedCalls } from '../../src/providers/index.js';
import { runAgent, scriptedModel, useRuntime, writeBlueprint } from './run-helpers.js';

describe('the empty-response nudge', () => {
  const env = useRuntime();

  it('nudges a stage that answers before calling a tool, up to max, and not after its first call', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'I think the answer is obvious.' },
        { text: 'Still just talking.' },
        { text: 'Noting it.', tool_calls: [{ name: 'context_write', arguments: { region: 'notes', content: 'n' } }] },
        { text: 'Done.' },
        { text: 'Never asked for: the reply before ends the stage.' },
      ],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "nudged"\nmodel = "${model}"\n[agent.nudge]\nmax = 2\ntext = "Use your tools in {stage}."\n[context.regions]\ntask = { kind = "pinned" }\nnotes = { kind = "pinned" }\n[stages.work]\n`,
    );

    const run = await runAgent(env.rt, bp, { task: 'Note something.' });

    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('Done.');
    const turns = scriptedCalls().filter((c) => c.runId.startsWith(run.handle.workflowId) && c.purpose === 'turn');
    expect(turns).toHaveLength(4);
  });

  it('accepts the text after max nudges', async () => {
    const model = scriptedModel({
      turns: [{ text: 'One.' }, { text: 'Two.' }, { text: 'Never asked for.' }],
    });
    const bp = writeBlueprint(
      `[agent]\nname = "nudged-once"\nmodel = "${model}"\n[context.regions]\ntask = { kind = "pinned" }\n[stages.work]\nnudge = { max = 1 }\n`,
    );

    const run = await runAgent(env.rt, bp, { task: 'Say something.' });

    expect(run.result.status).toBe('completed');
    expect(run.result.output).toBe('Two.');
  });
});
