/**
 * A hostile model calling tools its stage was not given, through the real
 * runtime: nothing runs, and the model reads a coded refusal.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

describe('tool grants', () => {
  const env = useRuntime();

  it('refuses shell and context_write in a stage given only read_file, and runs neither', async () => {
    const outside = join(tempDir('outside'), 'escaped.txt');
    const model = scriptedModel({
      turns: [
        {
          text: 'Trying what I was not given.',
          tool_calls: [
            { name: 'context_write', arguments: { region: 'notes', content: 'smuggled' } },
            { name: 'shell', arguments: { command: `echo pwned > ${outside}` } },
          ],
        },
        { text: 'Done.' },
      ],
    });
    // Routing shell into final_output makes the stored refusal the run's output, where the test can read it.
    const bp = writeBlueprint(`
[agent]
name = "confined"
model = "${model}"
[context.regions]
task  = { kind = "pinned" }
notes = { kind = "temporary" }
[stages.main]
available_tools = ["read_file"]
[stages.main.tool_routing]
default_region = "tool_results"
[stages.main.tool_routing.overrides]
shell = "final_output"
`);
    const { result } = await runAgent(env.rt, bp, { task: 'stay inside' });
    expect(result.status).toBe('completed');
    expect(existsSync(outside)).toBe(false);
    expect(result.output).toMatch(/^\[tool-not-granted\] stage "main" was not given the tool `shell`/);
    expect(result.output).toContain('Use one of: read_file.');
    expect(result.regions.find((r) => r.name === 'notes')?.entries).toBe(0);
  });
});
