/**
 * The empty-response nudge at load (docs/reference/stages.md#the-empty-response-nudge):
 * `[agent.nudge]` and a stage's `nudge`, each key cascading on its own, into
 * the stage's resolved nudge.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NUDGE_TEXT } from '../../src/blueprint/nudge.js';
import { codesOf, loadToml } from './helpers.js';

const nudgeOf = (toml: string, stage = 'work') => {
  const r = loadToml(toml);
  expect(codesOf(r).filter((c) => c !== 'unreachable-stage')).toEqual([]);
  return r.blueprint?.stages.find((s) => s.name === stage)?.nudge;
};

describe('the nudge tables', () => {
  it('leave a stage un-nudged when neither level writes one', () => {
    expect(nudgeOf('[stages.work]\nmax_iterations = 3')).toBeUndefined();
  });

  it("turn the original's defaults on when either level writes one", () => {
    expect(nudgeOf('[agent]\nname = "x"\n[agent.nudge]\n[stages.work]\n')).toEqual({
      max: 3,
      text: DEFAULT_NUDGE_TEXT,
    });
  });

  it('cascade each key on its own, stage over agent, and fill in {stage} and {regions}', () => {
    const toml = `[agent]\nname = "x"\n[agent.nudge]\nmax = 5\ntext = "Work on {stage}; fill {regions}."
[context.regions]\nplan = { kind = "pinned", required = true }\nnotes = { kind = "pinned" }
[stages.work.nudge]\nmax = 2\n[stages.other]\nnudge = { enabled = false }\n[stages.third]\n`;
    expect(nudgeOf(toml)).toEqual({ max: 2, text: 'Work on work; fill plan.' });
    expect(nudgeOf(toml, 'other')).toBeUndefined();
    expect(nudgeOf(toml, 'third')).toEqual({ max: 5, text: 'Work on third; fill plan.' });
  });

  it('leave a stage with interaction points alone unless enabled is written', () => {
    const points = (nudge: string) =>
      `[agent]\nname = "x"\n${nudge}\n[stages.work]\nmode = "interactive_points"\n[[stages.work.interaction_points]]\nprompt = "OK?"\n`;
    expect(nudgeOf(points('[agent.nudge]\nmax = 2'))).toBeUndefined();
    expect(nudgeOf(points('[agent.nudge]\nenabled = true'))).toMatchObject({ max: 3 });
  });

  it('check their values', () => {
    const r = loadToml(
      '[agent]\nname = "x"\n[agent.nudge]\nmax = -1\nenabled = "yes"\ntxt = "x"\n[stages.work]\nnudge = 3\n',
    );
    expect(codesOf(r)).toEqual(expect.arrayContaining(['bad-size', 'bad-value', 'unknown-key']));
    expect(r.diagnostics.map((d) => d.path)).toEqual(
      expect.arrayContaining(['agent.nudge.max', 'agent.nudge.enabled', 'agent.nudge.txt', 'stages.work.nudge']),
    );
  });
});
