/**
 * Output validators (docs/reference/blueprint.md#output-validators): the
 * loader reads and compiles them, `submit_output` runs them with the
 * original's contract, and a broken one takes the answer with a warning.
 */
import { describe, expect, it } from 'vitest';
import { submitOutput } from '../../src/outputs/submit.js';
import { runOutputValidator } from '../../src/outputs/validator.js';
import { codesOf, loadToml } from '../blueprint/helpers.js';

const A2UI = `
fn validate(content) {
    let doc = parse_json(content);
    if doc.root == () { return "an a2ui document needs a \`root\` node"; }
    if doc.root.component == () { return "the \`root\` node needs a \`component\`"; }
    ()
}`;

const spec = (source: string) => ({ format: 'a2ui', validator: 'validators/a2ui.rhai', validatorSource: source });

describe('runOutputValidator', () => {
  it('takes () and "" as good answers and a string as the reason for refusing', () => {
    expect(runOutputValidator(spec(A2UI), '{"root":{"component":"Card"}}')).toEqual({ ok: true });
    expect(runOutputValidator(spec(A2UI), '{"other":1}')).toEqual({
      ok: false,
      reason: 'an a2ui document needs a `root` node',
    });
    expect(runOutputValidator(spec('fn validate(c) { "" }'), 'x')).toEqual({ ok: true });
  });

  it('is broken, not a refusal, when the script fails or returns something else', () => {
    for (const source of [
      'fn validate(c) { throw "boom" }',
      'fn validate(c) { 42 }',
      'fn validate(c) { loop { } }',
      'fn validate(c) { parse_json(c) }',
    ]) {
      const verdict = runOutputValidator(spec(source), 'not json');
      expect(verdict.ok, source).toBe(true);
      expect(verdict.ok && verdict.warning, source).toMatch(/validators\/a2ui\.rhai is broken/);
    }
  });

  it('does nothing without a validator', () => {
    expect(runOutputValidator(undefined, 'x')).toEqual({ ok: true });
    expect(runOutputValidator({ format: 'json' }, 'x')).toEqual({ ok: true });
  });
});

const OUTPUT_STAGE =
  '[agent]\nname = "x"\n[stages.present]\nmode = "output"\n[stages.present.output]\nformat = "a2ui"\nvalidator = "validators/a2ui.rhai"\n';

describe('a blueprint with a validator', () => {
  it('carries the source, and submit_output refuses what the script refuses', () => {
    const r = loadToml(OUTPUT_STAGE, { 'validators/a2ui.rhai': A2UI });
    expect(codesOf(r)).toEqual([]);
    const bp = r.blueprint;
    if (!bp) throw new Error('no blueprint');
    expect(bp.stages[0]?.output?.validatorSource).toBe(A2UI);
    const refused = submitOutput(bp, 'present', { content: '{"root":{}}' });
    expect(refused).toEqual({
      ok: false,
      reply: '[output-invalid] the `root` node needs a `component`; fix the answer and call submit_output again.',
    });
    const taken = submitOutput(bp, 'present', { content: '{"root":{"component":"Card"}}' });
    expect(taken.ok).toBe(true);
  });

  it('says in the tool result when the validator is broken, and takes the answer', () => {
    const bp = loadToml(OUTPUT_STAGE, { 'validators/a2ui.rhai': 'fn validate(c) { c.nope() }' }).blueprint;
    if (!bp) throw new Error('no blueprint');
    const taken = submitOutput(bp, 'present', { content: 'anything' });
    expect(taken.ok).toBe(true);
    expect(taken.reply).toMatch(/^Final output accepted \(a2ui, 8 characters\)\. Warning: the output validator/);
  });

  it('is refused at load when it cannot run', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /does not exist/],
      [{ 'validators/a2ui.rhai': '  ' }, /is empty/],
      [{ 'validators/a2ui.rhai': 'fn validate(c) { let = ; }' }, /does not compile/],
      [{ 'validators/a2ui.rhai': 'fn validate(a, b) { () }' }, /no fn validate\(content\) taking one argument/],
    ];
    for (const [files, message] of cases) {
      const r = loadToml(OUTPUT_STAGE, files);
      const d = r.diagnostics.find((x) => x.code === 'output-validator-invalid');
      expect(d?.message).toMatch(message);
      expect(d?.path).toBe('stages.present.output.validator');
    }
    const outside = loadToml(OUTPUT_STAGE.replace('validators/a2ui.rhai', '../a2ui.rhai'));
    expect(outside.diagnostics.find((x) => x.code === 'output-validator-invalid')?.message).toMatch(/outside/);
  });

  it('is retired with the schema when a later level names another format', () => {
    const r = loadToml(`${OUTPUT_STAGE}[agent.output]\nformat = "json"\n`, { 'validators/a2ui.rhai': A2UI });
    const bp = r.blueprint;
    if (!bp) throw new Error('no blueprint');
    expect(submitOutput(bp, 'present', { content: '{"x":1}' }).ok).toBe(false);
  });
});
