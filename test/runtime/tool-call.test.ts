/**
 * The tool activity refuses a call its stage was not given, even when a
 * caller other than the workflow asks for it, and never runs it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { RunStore } from '../../src/runtime/node/run-store.js';
import { runToolCall } from '../../src/runtime/node/tool-call.js';

const bp = loadBlueprintFromString(
  `[context.regions]
task = { kind = "pinned" }
[stages.main]
available_tools = ["read_file", "list_dir"]
`,
  tmpdir(),
  'agent.toml',
).blueprint!;

describe('runToolCall', () => {
  const store = new RunStore({ blobDir: mkdtempSync(join(tmpdir(), 'lev-tool-')), env: {} });

  it('refuses a tool the stage was not given without running it', async () => {
    const hash = await store.putBlueprint(bp);
    const workdir = mkdtempSync(join(tmpdir(), 'lev-tool-work-'));
    const marker = join(workdir, 'ran.txt');
    const base = { runId: 'r', blueprintHash: hash, stage: 'main', workdir, unattended: true };
    for (const name of ['shell', 'bash', 'write_file']) {
      const args = name === 'write_file' ? { path: 'ran.txt', content: 'x' } : { command: `touch ${marker}` };
      const out = await runToolCall(store, { ...base, call: { id: 'c1', name, arguments: args } }, 1);
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(/^\[tool-not-granted\] stage "main" was not given the tool/);
      expect(out.modifiedPaths).toEqual([]);
    }
    expect(existsSync(marker)).toBe(false);
    const listed = await runToolCall(
      store,
      { ...base, call: { id: 'c2', name: 'list_dir', arguments: { path: '.' } } },
      1,
    );
    expect(listed.isError).toBe(false);
  });

  it('an unknown tool lists only the tools the stage was given', async () => {
    const hash = await store.putBlueprint(bp);
    const workdir = mkdtempSync(join(tmpdir(), 'lev-tool-work-'));
    const out = await runToolCall(
      store,
      {
        runId: 'r',
        blueprintHash: hash,
        stage: 'main',
        workdir,
        unattended: true,
        call: { id: 'c', name: 'nope', arguments: {} },
      },
      1,
    );
    expect(out.content).toContain('read_file, list_dir');
    expect(out.content).not.toContain('shell');
  });
});
