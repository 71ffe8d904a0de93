/**
 * The keys of an `interactive_points` stage (docs/reference/interaction.md#interaction-points):
 * every key of the original with its default and alias, the table form of
 * `mode`, and the checks `lev validate` makes of a point.
 */
import { describe, expect, it } from 'vitest';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const load = (stage: string, regions = 'plan = { kind = "pinned", max_tokens = 500 }') =>
  loadToml(`[agent]\nname = "x"\n[context.regions]\n${regions}\n[stages.plan]\n${stage}\n`);

describe('interaction points', () => {
  it('read every key, with its aliases', () => {
    const r = load(`mode = "interactive_points"
[[stages.plan.interaction_points]]
name = "approve"
prompt = "Approve?"
required = false
unattended = "ask"
style = "multiple_choice"
choices = ["Go", "Redo", "Stop"]
abort_options = ["Stop"]
edit_options = []
document_region = "plan"
[stages.plan.interaction_points.followups]
Redo = "Try again."
[[stages.plan.interaction_points]]
prompt = "Sure?"
`);
    expect(errorsOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]?.interactionPoints).toEqual([
      {
        name: 'approve',
        prompt: 'Approve?',
        required: false,
        unattended: 'ask',
        style: 'multiple_choice',
        options: ['Go', 'Redo', 'Stop'],
        directives: { Redo: 'Try again.' },
        abortOptions: ['Stop'],
        editOptions: [],
        documentRegion: 'plan',
      },
      {
        name: 'point2',
        prompt: 'Sure?',
        required: true,
        unattended: 'auto_approve',
        style: 'free_text',
        options: [],
        directives: {},
        abortOptions: [],
        editOptions: [],
      },
    ]);
  });

  it('read the table form of mode', () => {
    const r = load('mode = { interactive_points = [{ name = "ok", style = "confirm", abort_options = ["No"] }] }');
    expect(errorsOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]).toMatchObject({
      mode: 'interactive_points',
      interactionPoints: [{ name: 'ok', style: 'confirm', abortOptions: ['No'] }],
    });
  });

  it('refuse an unknown key, style or unattended value, as the original does', () => {
    const r = load(
      'mode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "choice"\nunattended = "never"\nquestion = "?"',
    );
    expect(codesOf(r)).toEqual(expect.arrayContaining(['bad-value', 'unknown-key']));
    expect(
      r.diagnostics
        .filter((d) => d.code === 'bad-value')
        .map((d) => d.message)
        .join('\n'),
    ).toMatch(/multiple_choice[\s\S]*auto_approve/);
  });

  it('keep their document only in a pinned region the stage sees', () => {
    const point = 'mode = "interactive_points"\n[[stages.plan.interaction_points]]\ndocument_region = "notes"';
    expect(
      load(point, 'notes = { kind = "pinned", max_tokens = 500 }').diagnostics.filter((d) => d.severity === 'error'),
    ).toEqual([]);
    const hashmap = load(point, 'notes = { kind = "hashmap", max_tokens = 500 }');
    expect(errorsOf(hashmap).join('\n')).toMatch(/bad-interaction-point: .*a hashmap region/);
    expect(errorsOf(load(point)).join('\n')).toMatch(/bad-interaction-point: .*does not see/);
  });

  it('warn of a list entry that names none of the answers, folded as answers are', () => {
    const r = load(
      'mode = "interactive_points"\n[[stages.plan.interaction_points]]\nstyle = "confirm"\nabort_options = ["no", "Never"]',
    );
    const warned = r.diagnostics.filter((d) => d.code === 'interaction-point-option-unknown');
    expect(warned.map((d) => d.message)).toEqual([expect.stringContaining('"Never" in abort_options')]);
  });

  it('offer the asking tools to an interactive_points stage without allow_blocking_tools', () => {
    const r = load(
      'mode = "interactive_points"\navailable_tools = ["ask_user_text", "ask_user_choice", "present_for_review"]',
    );
    expect(codesOf(r)).not.toContain('blocking-tool-not-allowed');
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['ask_user', 'ask_user_choice', 'present_for_review']);
    const autonomous = load(
      'available_tools = ["ask_user_confirm", "edit_document"]\nrequired_tools = ["edit_document"]',
    );
    expect(codesOf(autonomous)).toContain('blocking-tool-not-allowed');
    // Naming a tool in required_tools says the stage means to wait for it.
    expect(autonomous.blueprint?.stages[0]).toMatchObject({
      availableTools: ['edit_document'],
      requiredTools: ['edit_document'],
    });
    expect(errorsOf(load('available_tools = ["read_file"]\nrequired_tools = ["ask_user"]')).join('\n')).toMatch(
      /bad-value: .*required_tools but not in available_tools/,
    );
  });
});
