/**
 * Blueprints written for the original Rust Leviath (`agent.leviath`) load
 * here. One pair per cause that used to refuse them: the original's form,
 * which now passes, and a still-wrong variant, which gets its code.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { emptyUserConfig } from '../../src/blueprint/user-config.js';
import { acceptsTask, effectiveSeed } from '../../src/seeds/task.js';
import { codesOf, errorsOf } from './helpers.js';

function loadLeviath(text: string, opts: Parameters<typeof loadBlueprint>[1] = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lev-orig-'));
  writeFileSync(join(dir, 'agent.leviath'), text);
  return loadBlueprint(dir, { workdir: dir, ...opts });
}

const STAGE = (body: string) => `[agent]\nname = "x"\nentry_stage = "work"\n\n[stages.work]\n${body}\n`;
const CHAIN =
  'model = { models = [{ provider = "anthropic", model = "claude-opus-5" }, { provider = "openai", model = "gpt-5.6-terra" }] }';

describe('the corpus in test/fixtures/original', () => {
  const root = 'test/fixtures/original';
  for (const name of readdirSync(root)) {
    it(`${name} validates without errors`, () => {
      const r = loadBlueprint(join(root, name), { workdir: join(root, name) });
      expect(errorsOf(r)).toEqual([]);
      expect(r.file.endsWith('agent.leviath')).toBe(true);
      expect(r.blueprint?.agent.name).toBe(name);
    });
  }
});

describe('stage mode', () => {
  it('accepts autonomous, output and interactive', () => {
    for (const mode of ['autonomous', 'output', 'interactive']) {
      const r = loadLeviath(STAGE(`mode = "${mode}"`));
      expect(errorsOf(r)).toEqual([]);
    }
    const out = loadLeviath(STAGE('mode = "output"'));
    expect(out.blueprint?.stages[0]).toMatchObject({ mode: 'output', requireOutput: true });
    expect(out.blueprint?.stages[0]?.availableTools).toContain('submit_output');
  });

  it("loads the original's fan-out stage in both forms, and refuses a misspelt mode", () => {
    const worker = '[stages.one]\nallow_as_worker = true\n';
    const flat = loadLeviath(
      `${STAGE('mode = "fan_out"\nworker_stage = "one"\nmax_workers = 8\non_worker_failure = "fail_all"\nmerge_stage = "one"')}${worker}`,
    );
    expect(errorsOf(flat)).toEqual([]);
    expect(flat.blueprint?.stages[0]?.fanOut).toMatchObject({
      maxWorkers: 8,
      onWorkerFailure: 'fail',
      mergeStage: 'one',
    });
    const table = loadLeviath(
      `${STAGE('')}[stages.work.mode.fan_out]\nworker_stage = "one"\nmax_items = 12\n${worker}`,
    );
    expect(errorsOf(table)).toEqual([]);
    expect(table.blueprint?.stages[0]).toMatchObject({ mode: 'fan_out', fanOut: { maxItems: 12, maxWorkers: 30 } });
    expect(codesOf(loadLeviath(`${STAGE('mode = "fan_out"\nworker_query = "no agent says this"')}`))).toContain(
      'worker-query-unmatched',
    );
    expect(codesOf(loadLeviath(STAGE('mode = "autonomus"')))).toContain('bad-value');
    expect(codesOf(loadLeviath(STAGE('mode = "output"\nrequire_output = "yes"')))).toContain('bad-value');
    expect(loadLeviath(STAGE('require_output = true')).blueprint?.stages[0]).toMatchObject({ requireOutput: true });
  });
});

describe('stage model fallback chains', () => {
  it('reads the chain in order; the first entry is the stage model', () => {
    const r = loadLeviath(STAGE(CHAIN));
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unknown-model-window');
    expect(r.blueprint?.stages[0]).toMatchObject({
      model: 'anthropic:claude-opus-5',
      models: ['anthropic:claude-opus-5', 'openai:gpt-5.6-terra'],
    });
  });

  it('refuses an entry without a model, an empty chain and a misspelt entry key', () => {
    expect(codesOf(loadLeviath(STAGE('model = { models = [{ provider = "openai" }] }')))).toContain('bad-value');
    expect(codesOf(loadLeviath(STAGE('model = { models = [] }')))).toContain('bad-value');
    expect(codesOf(loadLeviath(STAGE('model = { models = [{ provder = "openai", model = "gpt-5.5" }] }')))).toContain(
      'unknown-key',
    );
  });
});

describe('stage description', () => {
  it('is kept, and must be a string', () => {
    expect(loadLeviath(STAGE('description = "Read the logs"')).blueprint?.stages[0]?.description).toBe('Read the logs');
    expect(codesOf(loadLeviath(STAGE('description = 3')))).toContain('bad-value');
  });
});

describe('[compaction] provider and model', () => {
  it('join into the summariser, and model = "provider:model" works alone', () => {
    const joined = loadLeviath('[compaction]\nprovider = "anthropic"\nmodel = "claude-sonnet-5"\n');
    expect(joined.blueprint?.compaction.model).toBe('anthropic:claude-sonnet-5');
    expect(loadLeviath('[compaction]\nmodel = "openai:gpt-5.4-mini"\n').blueprint?.compaction.model).toBe(
      'openai:gpt-5.4-mini',
    );
    // A bare Claude model is Anthropic's, not an OpenAI-compatible model of that name.
    expect(loadLeviath('[compaction]\nmodel = "claude-sonnet-5"\n').blueprint?.compaction.model).toBe(
      'anthropic:claude-sonnet-5',
    );
  });

  it('refuses a misspelt key and a provider without a model', () => {
    expect(codesOf(loadLeviath('[compaction]\nprovder = "anthropic"\nmodel = "x"\n'))).toContain('unknown-key');
    expect(codesOf(loadLeviath('[compaction]\nprovider = "anthropic"\n'))).toContain('bad-value');
  });
});

describe('volatility on stage_instructions', () => {
  it('is ignored with a warning; an unknown volatility is still an error', () => {
    const r = loadLeviath('[context.regions]\nstage_instructions = { kind = "pinned", volatility = "stable" }\n');
    expect(r.blueprint).toBeDefined();
    expect(codesOf(r)).toEqual(['stage-instructions-volatility-ignored']);
    expect(
      codesOf(loadLeviath('[context.regions]\nstage_instructions = { kind = "pinned", volatility = "static" }\n')),
    ).toContain('unknown-volatility');
  });
});

describe('a stage layout repeating the global seed', () => {
  const global = '[context.regions]\ntask = { kind = "pinned", seed = "task" }\n';
  it('is a note when word for word', () => {
    const r = loadLeviath(`${global}[stages.work.context.regions]\ntask = { seed = "task" }\n`);
    expect(r.blueprint).toBeDefined();
    expect(codesOf(r)).toContain('seed-repeated-in-stage');
  });

  it('is an error when it differs, and the message does not send the user where the seed already is', () => {
    const r = loadLeviath(`${global}[stages.work.context.regions]\ntask = { seed = { literal = "x" } }\n`);
    const d = r.diagnostics.find((x) => x.code === 'seed-in-stage-layout');
    expect(d?.message).toMatch(/different `seed`/);
  });
});

describe('the task region seed: validator and runtime agree', () => {
  it('a task region whose seed is not understood starts empty at runtime too', () => {
    const r = loadLeviath('[context.regions]\ntask = { kind = "pinned", seed = { caller_input = "task" } }\n');
    expect(codesOf(r)).toContain('region-seed-not-understood');
    const task = r.blueprint?.regions.find((x) => x.name === 'task');
    expect(task && effectiveSeed(task)).toBeUndefined();
    expect(r.blueprint && acceptsTask(r.blueprint)).toBe(false);
  });

  it('seed = "task" reads the task, and a task region without seed still does', () => {
    for (const line of ['task = { kind = "pinned", seed = "task" }', 'task = { kind = "pinned" }']) {
      const r = loadLeviath(`[context.regions]\n${line}\n`);
      expect(r.blueprint && acceptsTask(r.blueprint)).toBe(true);
    }
  });
});

describe('a bare-string seed names a caller input', () => {
  it('reads the input of that name, with a note', () => {
    const r = loadLeviath('[context.regions]\nscope = { kind = "pinned", seed = "scope" }\n');
    expect(r.blueprint?.regions.find((x) => x.name === 'scope')?.seed).toEqual({
      form: 'caller',
      key: 'scope',
      refresh: 'once',
    });
    expect(codesOf(r)).toEqual(['seed-caller-input']);
  });

  it('warns when the string is one letter from a seed form word', () => {
    const r = loadLeviath('[context.regions]\nbrief = { kind = "pinned", seed = "inptu" }\n');
    expect(codesOf(r)).not.toContain('seed-caller-input-typo');
    const typo = loadLeviath('[context.regions]\nbrief = { kind = "pinned", seed = "imput" }\n');
    expect(codesOf(typo)).toEqual(['seed-caller-input-typo']);
    expect(typo.diagnostics[0]?.message).toMatch(/"input"/);
  });
});

describe('current models', () => {
  it('are in the model table with their windows', () => {
    for (const model of [
      'anthropic:claude-opus-5',
      'anthropic:claude-haiku-5-5',
      'openai:gpt-5.6-sol',
      'openai:gpt-5.6-terra',
      'openai:gpt-5.6-luna',
      'openai:gpt-5.5',
      'openai:gpt-5.4-mini',
    ]) {
      const r = loadLeviath(STAGE(`model = "${model}"`));
      expect(codesOf(r), model).not.toContain('unknown-model-window');
    }
  });

  it('an unknown one is still reported, and the user config extends the table', () => {
    const text = STAGE('model = { models = [{ provider = "ollama", model = "qwen3.6:27b" }] }');
    expect(codesOf(loadLeviath(text))).toContain('unknown-model-window');
    const userConfig = {
      ...emptyUserConfig(),
      models: { 'ollama:qwen3.6': { contextWindow: 262_144, maxOutputTokens: 8192 } },
    };
    expect(codesOf(loadLeviath(text, { userConfig }))).not.toContain('unknown-model-window');
  });
});

describe('tool names in available_tools', () => {
  it('a misspelt tool is an error with a did-you-mean', () => {
    const r = loadLeviath(STAGE('available_tools = ["read_file", "contxt_append"]'));
    const d = r.diagnostics.find((x) => x.code === 'unknown-tool');
    expect(d?.severity).toBe('error');
    expect(d?.message).toMatch(/did you mean "context_append"/);
  });

  it('the original tools not built here are a warning, and the stage is not offered them', () => {
    const r = loadLeviath(STAGE('available_tools = ["read_file", "bash", "read_files"]'));
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).toContain('unsupported-feature');
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['read_file', 'shell']);
  });

  it('ask_user_text is ask_user, offered only with allow_blocking_tools = true', () => {
    const without = loadLeviath(STAGE('available_tools = ["read_file", "ask_user_text"]'));
    expect(errorsOf(without)).toEqual([]);
    expect(codesOf(without)).toContain('blocking-tool-not-allowed');
    expect(without.blueprint?.stages[0]?.availableTools).toEqual(['read_file']);
    const allowed = loadLeviath(STAGE('available_tools = ["read_file", "ask_user_text"]\nallow_blocking_tools = true'));
    expect(codesOf(allowed)).not.toContain('blocking-tool-not-allowed');
    expect(allowed.blueprint?.stages[0]).toMatchObject({
      availableTools: ['read_file', 'ask_user'],
      allowBlockingTools: true,
    });
  });
});

describe('original keys not built yet', () => {
  it('are warnings that name what will not happen', () => {
    const r = loadLeviath(
      `${STAGE('shell_hint = true\nbatch_tool_hint = false\naccepts_messages = false')}\n[[transforms]]\nfrom_blueprint = "a"\n`,
    );
    expect(errorsOf(r)).toEqual([]);
    const messages = r.diagnostics.filter((d) => d.code === 'unsupported-feature').map((d) => d.message);
    // accepts_messages and [[transforms]] are built (docs/reference/operators.md#accepts_messages,
    // docs/reference/sub-agents.md#context-transforms): no warning for them.
    expect(messages).toHaveLength(2);
    expect(r.blueprint?.stages[0]?.acceptsMessages).toBe(false);
    expect(messages.join('\n')).toMatch(/hint about the shell is not added/);
  });
});
