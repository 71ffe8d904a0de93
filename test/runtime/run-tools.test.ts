/** The run-wide tool list: the union of the stages' grants, which stages offer it, and what the model reads of its grants. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { stageToolSpecs } from '../../src/runtime/node/inference.js';
import { grantNote, offersRunTools, runTools, specStage, stableToolsOn } from '../../src/runtime/run-tools.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { isGranted } from '../../src/tools/grants.js';
import { codesOf, loadToml } from '../blueprint/helpers.js';

function load(extra: string, runtime = ''): Blueprint {
  const loaded = loadBlueprintFromString(
    `${runtime}
[context.regions]
task = { kind = "pinned" }
[stages.plan]
available_tools = ["read_file", "grep", "context_read"]
[stages.plan.transitions.build]
[stages.build]
available_tools = ["read_file", "bash", "edit_file", "context_read"]
[stages.build.transitions.report]
${extra}`,
    tmpdir(),
    'agent.toml',
  );
  if (!loaded.blueprint) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.blueprint;
}

const bp = load(`[stages.report]
available_tools = ["context_read", "submit_output"]
[stages.report.output]
format = "json"
`);

describe('run-wide tool list', () => {
  it('is every stage grant once, in stage order and each stage its own order, aliases resolved', () => {
    expect(runTools(bp)).toEqual(['read_file', 'grep', 'context_read', 'shell', 'edit_file', 'submit_output']);
  });

  it('is on unless [runtime] stable_tools = false, and only stages granted another list offer it', () => {
    expect(stableToolsOn(bp)).toBe(true);
    expect(bp.runtime?.stableTools).toBeUndefined();
    expect(['plan', 'build', 'report'].map((s) => offersRunTools(bp, s))).toEqual([true, true, true]);
    const off = load('[stages.report]', '[runtime]\nstable_tools = false');
    expect(off.runtime?.stableTools).toBe(false);
    expect(offersRunTools(off, 'plan')).toBe(false);
    // A single stage, or every stage granted the same list, offers its own: nothing changes.
    const same = loadBlueprintFromString(
      `[context.regions]\ntask = { kind = "pinned" }\n[stages.a]\navailable_tools = ["read_file"]\n[stages.a.transitions.b]\n[stages.b]\navailable_tools = ["read_file"]\n`,
      tmpdir(),
      'agent.toml',
    ).blueprint!;
    expect(offersRunTools(same, 'a')).toBe(false);
    expect(offersRunTools(same, 'b')).toBe(false);
  });

  it('reads the switch from the blueprint over the user config, and a bad value is bad-value', () => {
    const stages = '[stages.a]\navailable_tools = ["read_file"]\n[stages.a.transitions.b]\n[stages.b]\n';
    const on = (toml: string, userToml?: string) => {
      const userConfig = userToml === undefined ? undefined : parseUserConfig(userToml, '/cfg.toml').config;
      const { blueprint, diagnostics } = loadToml(toml + stages, {}, userConfig ? { userConfig } : {});
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      return stableToolsOn(blueprint!);
    };
    expect(on('')).toBe(true);
    expect(on('', '[runtime]\nstable_tools = false\n')).toBe(false);
    expect(on('[runtime]\nstable_tools = true\n', '[runtime]\nstable_tools = false\n')).toBe(true);
    expect(codesOf(loadToml('[runtime]\nstable_tools = "yes"\n'))).toContain('bad-value');
  });

  it('leaves out the stages that run as workers: they offer their own, and the run does not offer theirs', () => {
    const fan = load(`[stages.report]
available_tools = ["context_read"]
[stages.work]
allow_as_worker = true
available_tools = ["web_fetch", "context_append"]`);
    expect(runTools(fan)).toEqual(['read_file', 'grep', 'context_read', 'shell', 'edit_file']);
    expect(offersRunTools(fan, 'work')).toBe(false);
    expect(offersRunTools(fan, 'plan')).toBe(true);
    expect(grantNote(fan, 'plan')).toContain('(shell, edit_file)');
  });

  it('offers every stage the same specs, each tool in the version of the stage that may call it', () => {
    const lists = ['plan', 'build', 'report'].map((s) => stageToolSpecs(bp, s, undefined, true));
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    expect(lists[0]!.map((t) => t.name)).toEqual(runTools(bp));
    expect(lists[0]!.find((t) => t.name === 'submit_output')?.description).toContain('Format: json');
    expect(specStage(bp, 'plan', 'submit_output')).toBe('report');
    expect(specStage(bp, 'build', 'bash')).toBe('build');
    expect(specStage(bp, 'plan', 'read_file')).toBe('plan');
    // Without the switch a stage offers its own, as before.
    expect(stageToolSpecs(bp, 'plan', undefined).map((t) => t.name)).toEqual(['read_file', 'grep', 'context_read']);
  });

  it('states the stage grants and names the tools it may not call; grants are unchanged', () => {
    const note = grantNote(bp, 'plan');
    expect(note).toBe(
      'In stage "plan" you may call only: read_file, grep, context_read. The other tools listed (shell, edit_file, submit_output) belong to other stages of this run: a call to one is refused (`tool-not-granted`) and not run.',
    );
    expect(grantNote(bp, 'plan', ['docs__search'])).toContain('read_file, grep, context_read, docs__search.');
    expect(isGranted(bp, 'plan', 'edit_file')).toBe(false);
    expect(isGranted(bp, 'build', 'edit_file')).toBe(true);
    // A stage granted every tool of the run has nothing withheld to state.
    const all = load('[stages.report]\navailable_tools = ["read_file", "grep", "bash", "edit_file", "context_read"]');
    expect(grantNote(all, 'report')).toBeUndefined();
  });
});
