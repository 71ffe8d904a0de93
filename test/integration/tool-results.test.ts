/**
 * What a tool result looks like by the time the model reads it, through the
 * real runtime: a failing path tool that names a context region gets a hint.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent, scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

describe('tool results', () => {
  const env = useRuntime();

  it('tells the model that a path naming a region is a context region, not a file', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Reading my findings.', tool_calls: [{ name: 'read_file', arguments: { path: 'findings' } }] },
        { text: 'Done.' },
      ],
    });
    // Routing read_file into final_output makes the stored result the run's output, where the test can read it.
    const bp = writeBlueprint(`
[agent]
name = "hinted"
model = "${model}"
[context.regions]
task     = { kind = "pinned" }
findings = { kind = "hashmap" }
[stages.main.tool_routing]
default_region = "tool_results"
[stages.main.tool_routing.overrides]
read_file = "final_output"
`);
    const { result } = await runAgent(env.rt, bp, { task: 'look at the findings' });
    expect(result.status).toBe('completed');
    expect(result.output).toMatch(/^\[[a-z-]+\] /);
    expect(result.output).toContain(
      'findings is a context region already in your prompt, not a file; use context_read',
    );
  });

  it('keeps tracked files in their hashmap and leaves a short reference in the result', async () => {
    const model = scriptedModel({
      turns: [
        { text: 'Reading the notes.', tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        {
          text: 'Rewriting them.',
          tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'short\n' } }],
        },
        { text: 'Done.' },
      ],
    });
    const bp = writeBlueprint(`
[agent]
name = "tracker"
model = "${model}"
[context.regions]
task  = { kind = "pinned" }
files = { kind = "hashmap", max_tokens = 3000 }
[context.file_tracking]
region = "files"
[stages.main.tool_routing]
default_region = "tool_results"
[stages.main.tool_routing.overrides]
read_file = "final_output"
`);
    const workdir = tempDir('tracked');
    writeFileSync(join(workdir, 'notes.txt'), 'the quick brown fox jumps over the lazy dog\n'.repeat(40));
    const { result } = await runAgent(env.rt, bp, { task: 'tidy the notes', workdir });
    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'read_file notes.txt: the file\'s text (400 tokens) is kept in region "files" under key "notes.txt", already in your prompt.',
    );
    // The write replaced the tracked text under the same key.
    const files = result.regions.find((r) => r.name === 'files')!;
    expect(files.entries).toBe(1);
    expect(files.tokens).toBeLessThan(10);
  });
});
