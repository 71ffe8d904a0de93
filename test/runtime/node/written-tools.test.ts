/**
 * The tool worker's side of `[agent] dynamic_tools`
 * (docs/reference/script-tools.md#tools-a-run-writes): the scan stores what
 * the stage is offered under one hash, and a call runs the script only as
 * that hash offered it, under the tool's own permission.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../../src/blueprint/load.js';
import { RunStore } from '../../../src/runtime/node/run-store.js';
import { runToolCall } from '../../../src/runtime/node/tool-call.js';
import { loadWritten, scanWrittenTools } from '../../../src/runtime/node/written-tools.js';

const SHOUT = '// @tool shout\n// @param text string required\nparams.text.to_upper()';

function blueprint(permissions = '') {
  return loadBlueprintFromString(
    `[agent]\nname = "w"\ndynamic_tools = true\n[context.regions]\ntask = { kind = "pinned" }\n[stages.main]\navailable_tools = ["read_file", "shout"]\n${permissions}`,
    tmpdir(),
    'agent.toml',
  ).blueprint!;
}

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lev-written-'));
  mkdirSync(join(dir, 'tools'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'tools', name), text);
  return dir;
}

describe('tools a run writes, on the tool worker', () => {
  const store = new RunStore({ blobDir: mkdtempSync(join(tmpdir(), 'lev-written-blobs-')), env: {} });

  it('stores what the stage is offered under one hash, the same while the folder stays the same', async () => {
    const hash = await store.putBlueprint(blueprint());
    const work = workdir({ 'shout.rhai': SHOUT, 'other.rhai': '// @tool other\n1' });
    const scan = { runId: 'r', blueprintHash: hash, stage: 'main', workdir: work };
    const found = await scanWrittenTools(store, scan);
    expect(found.offered).toMatch(/^[0-9a-f]{64}$/);
    expect((await loadWritten(store, found.offered)).map((t) => t.name)).toEqual(['shout']);
    expect(await scanWrittenTools(store, scan)).toEqual(found);
    expect(await scanWrittenTools(store, { ...scan, workdir: workdir({}) })).toEqual({});
  });

  it('runs the offered script; refuses it once changed or removed, and a name the turn did not offer', async () => {
    const hash = await store.putBlueprint(blueprint());
    const work = workdir({ 'shout.rhai': SHOUT });
    const { offered } = await scanWrittenTools(store, {
      runId: 'r',
      blueprintHash: hash,
      stage: 'main',
      workdir: work,
    });
    const call = { id: 'c', name: 'shout', arguments: { text: 'hi' } };
    const base = { runId: 'r', blueprintHash: hash, stage: 'main', workdir: work, unattended: true, call };
    const ran = await runToolCall(store, { ...base, ...(offered ? { written: offered } : {}) }, 1);
    expect(ran).toMatchObject({ content: 'HI', isError: false });

    expect((await runToolCall(store, base, 1)).content).toMatch(/^\[dynamic-tool-missing\]/);
    writeFileSync(join(work, 'tools/shout.rhai'), `${SHOUT}.to_lower()`);
    const changed = await runToolCall(store, { ...base, ...(offered ? { written: offered } : {}) }, 1);
    expect(changed).toMatchObject({ isError: true });
    expect(changed.content).toMatch(/^\[dynamic-tool-changed\] `shout` changed/);
    rmSync(join(work, 'tools/shout.rhai'));
    const gone = await runToolCall(store, { ...base, ...(offered ? { written: offered } : {}) }, 1);
    expect(gone.content).toMatch(/^\[dynamic-tool-changed\] `shout` was offered on this turn, but no script/);
  });

  it("answers to the tool's own [tool_permissions]", async () => {
    const hash = await store.putBlueprint(blueprint('[stages.main.tool_permissions]\nshout = "deny"'));
    const work = workdir({ 'shout.rhai': SHOUT });
    const { offered } = await scanWrittenTools(store, {
      runId: 'r',
      blueprintHash: hash,
      stage: 'main',
      workdir: work,
    });
    const out = await runToolCall(
      store,
      {
        runId: 'r',
        blueprintHash: hash,
        stage: 'main',
        workdir: work,
        unattended: true,
        call: { id: 'c', name: 'shout', arguments: { text: 'hi' } },
        ...(offered ? { written: offered } : {}),
      },
      1,
    );
    expect(out.content).toMatch(/^\[permission-denied\]/);
  });
});
