/**
 * Which shape a stage's inferences take (docs/reference/blueprint.md#runtime): the model table's
 * `local_inference`, else the blueprint's `[runtime]` switch, else the user config's; and the
 * bound a local inference's attempts run under.
 */
import { describe, expect, it } from 'vitest';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { inferenceShape, localScheduleToCloseMs } from '../../src/runtime/inference-shape.js';
import { stageChain } from '../../src/runtime/model-fallback.js';
import { codesOf, loadToml } from '../blueprint/helpers.js';

function shapeOf(toml: string, userToml?: string) {
  const userConfig = userToml === undefined ? undefined : parseUserConfig(userToml, '/cfg.toml').config;
  const { blueprint, diagnostics } = loadToml(toml, {}, userConfig ? { userConfig } : {});
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const bp = blueprint!;
  return inferenceShape(bp, stageChain(bp.stages[0]!));
}

describe('inferenceShape', () => {
  it('is the normal activity unless something asks for the local shape', () => {
    expect(shapeOf('[agent]\nmodel = "openai:gpt-4o"\n')).toBe('activity');
    expect(loadToml('[agent]\nmodel = "openai:gpt-4o"\n').blueprint?.runtime).toBeUndefined();
  });

  it('follows the [runtime] switch, the blueprint over the user config', () => {
    expect(shapeOf('[runtime]\nlocal_inference = true\n')).toBe('local');
    expect(shapeOf('', '[runtime]\nlocal_inference = true\n')).toBe('local');
    expect(shapeOf('[runtime]\nlocal_inference = false\n', '[runtime]\nlocal_inference = true\n')).toBe('activity');
  });

  it("follows a model's own local_inference over the switch, for every entry of a chain", () => {
    const fast = '[models."openai:gpt-4o-mini"]\nlocal_inference = true\n';
    const slow = '[models."openai:gpt-4o"]\nlocal_inference = false\n';
    expect(shapeOf(`[agent]\nmodel = "openai:gpt-4o-mini"\n${fast}`)).toBe('local');
    expect(shapeOf(`[runtime]\nlocal_inference = true\n[agent]\nmodel = "openai:gpt-4o"\n${slow}`)).toBe('activity');
    const chain =
      '[stages.main]\nmodel = { models = [{ provider = "openai", model = "gpt-4o-mini" }, { provider = "openai", model = "gpt-4o" }] }\n';
    expect(shapeOf(`${fast}${chain}`)).toBe('activity');
    expect(shapeOf(`${fast}[models."openai:gpt-4o"]\nlocal_inference = true\n${chain}`)).toBe('local');
  });

  it('reports a switch that is not a boolean, and an unknown [runtime] key', () => {
    expect(codesOf(loadToml('[runtime]\nlocal_inference = "yes"\n'))).toContain('bad-value');
    expect(codesOf(loadToml('[runtime]\nblobs = "local"\n'))).toContain('unknown-key');
    expect(codesOf(loadToml('[models."openai:gpt-4o"]\nlocal_inference = 1\n'))).toContain('bad-value');
    expect(parseUserConfig('[runtime]\nlocal_inference = 2\n', '/cfg.toml').diagnostics[0]?.code).toBe('bad-value');
  });
});

describe('localScheduleToCloseMs', () => {
  it('bounds every attempt and every backoff between them', () => {
    expect(localScheduleToCloseMs(10_000, 1)).toBe(10_000);
    // 1 + 2 + 4 + 8 + 16 + 32 + 60 s of backoff between eight attempts.
    expect(localScheduleToCloseMs(600_000, 8)).toBe(8 * 600_000 + 123_000);
  });
});
