/**
 * `[stages.<name>.model.parameters]` (docs/providers.md#model-parameters):
 * read into the stage in their one form, checked against the value each
 * takes and against every provider of the stage's chain, and carried along
 * when a run switches models only where the new provider can take them.
 */
import { describe, expect, it } from 'vitest';
import { withModel } from '../../src/blueprint/model-switch.js';
import { isLevError } from '../../src/errors.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const stage = (model: string) => `[agent]\nname = "x"\n[stages.work]\nmax_iterations = 3\nmodel = ${model}\n`;

describe('model parameters', () => {
  it("are read in their one form; the original's max_output_tokens is max_tokens, a string stop a list", () => {
    const r = loadToml(
      stage(
        '{ models = [{ provider = "openai", model = "gpt-5.5" }, { provider = "ollama", model = "qwen3" }], parameters = { temperature = 0.3, top_p = 0.8, max_output_tokens = 900, stop = "END", reasoning_effort = "low" } }',
      ),
    );
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unsupported-feature');
    expect(r.blueprint?.stages[0]?.modelParameters).toEqual({
      temperature: 0.3,
      top_p: 0.8,
      max_tokens: 900,
      stop: ['END'],
      reasoning_effort: 'low',
    });
  });

  it('a stage without parameters carries none, so earlier blueprints keep their JSON', () => {
    const r = loadToml(stage('{ provider = "openai", model = "gpt-5.5" }'));
    expect(r.blueprint?.stages[0]).not.toHaveProperty('modelParameters');
  });

  it('refuses a value of the wrong kind with bad-value and a name no provider takes with model-parameter-unsupported', () => {
    const bad = (p: string) =>
      codesOf(loadToml(stage(`{ provider = "openai", model = "gpt-5.5", parameters = { ${p} } }`)));
    expect(bad('temperature = 3')).toContain('bad-value');
    expect(bad('top_p = "high"')).toContain('bad-value');
    expect(bad('max_tokens = 0')).toContain('bad-size');
    expect(bad('stop = [1]')).toContain('bad-value');
    expect(bad('reasoning_effort = "extreme"')).toContain('bad-value');
    expect(bad('think = "no"')).toContain('bad-value');
    const unknown = loadToml(stage('{ provider = "openai", model = "gpt-5.5", parameters = { temprature = 0.2 } }'));
    expect(codesOf(unknown)).toContain('model-parameter-unsupported');
    expect(unknown.diagnostics.find((d) => d.code === 'model-parameter-unsupported')?.message).toMatch(
      /did you mean "temperature"/i,
    );
  });

  it('refuses a parameter one provider of the chain has no setting for, naming it', () => {
    const r = loadToml(
      stage(
        '{ models = [{ provider = "openai", model = "gpt-5.5" }, { provider = "anthropic", model = "claude-opus-5" }], parameters = { temperature = 0.2 } }',
      ),
    );
    const d = r.diagnostics.find((x) => x.code === 'model-parameter-unsupported');
    expect(d?.severity).toBe('error');
    expect(d?.message).toMatch(/anthropic has no setting `temperature`/);
    expect(d?.path).toBe('stages.work.model.parameters');
    const think = loadToml(stage('{ provider = "openai", model = "gpt-5.5", parameters = { think = false } }'));
    expect(codesOf(think)).toContain('model-parameter-unsupported');
    const effort = loadToml(stage('{ provider = "vllm", model = "qwen3", parameters = { reasoning_effort = "max" } }'));
    expect(effort.diagnostics.find((x) => x.code === 'model-parameter-unsupported')?.message).toMatch(
      /vllm takes `reasoning_effort` "low", "medium", "high", not "max"/,
    );
    const both = loadToml(
      stage('{ provider = "ollama", model = "qwen3", parameters = { think = false, reasoning_effort = "low" } }'),
    );
    expect(codesOf(both)).toContain('model-parameter-unsupported');
  });

  it('the scripted model takes every parameter', () => {
    const r = loadToml(
      stage('{ provider = "scripted", model = "default", parameters = { think = false, temperature = 1 } }'),
    );
    expect(errorsOf(r)).toEqual([]);
  });

  it('lev run --model refuses a model whose provider cannot take them, and keeps them on one that can', () => {
    const bp = loadToml(stage('{ provider = "openai", model = "gpt-5.5", parameters = { temperature = 0.2 } }'))
      .blueprint!;
    let code: string | undefined;
    try {
      withModel(bp, 'anthropic:claude-opus-5');
    } catch (err) {
      if (isLevError(err)) code = err.code;
    }
    expect(code).toBe('model-parameter-unsupported');
    expect(withModel(bp, 'ollama:qwen3').stages[0]?.modelParameters).toEqual({ temperature: 0.2 });
  });
});
