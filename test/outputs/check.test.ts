import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/outputs/check.js';
import { stageOutputSpec, submitOutputDescription, withLaunchOutput } from '../../src/outputs/spec.js';
import { submitOutput } from '../../src/outputs/submit.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { loadToml } from '../blueprint/helpers.js';

describe('checking a submitted answer', () => {
  it('parses the formats it knows and says why one does not parse', () => {
    expect(checkAnswer({ format: 'json' }, '{"a": 1}')).toEqual({ ok: true });
    expect(checkAnswer({ format: 'json' }, '```json\n{"a": 1}\n```')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^the answer is not valid json/),
    });
    expect(checkAnswer({ format: 'yaml' }, 'a: 1\nb: [2, 3]\n').ok).toBe(true);
    expect(checkAnswer({ format: 'YAML' }, 'a: [1, 2\n').ok).toBe(false);
    expect(checkAnswer({ format: 'toml' }, 'a = 1\n').ok).toBe(true);
    expect(checkAnswer({ format: 'toml' }, 'a = \n').ok).toBe(false);
    expect(checkAnswer({ format: 'csv' }, 'a,b\n1,2\n').ok).toBe(true);
    expect(checkAnswer({ format: 'csv' }, 'a,b\n1,2,3\n')).toMatchObject({
      ok: false,
      reason: /Invalid Record Length/,
    });
    expect(checkAnswer({ format: 'xml' }, '<findings><finding severity="high"/></findings>').ok).toBe(true);
    expect(checkAnswer({ format: 'xml' }, '<findings><finding>')).toMatchObject({ ok: false, reason: /Unclosed tag/ });
  });

  it('carries an unknown label through unchecked, and refuses an empty answer', () => {
    expect(checkAnswer({ format: 'a2ui' }, 'anything at all')).toEqual({ ok: true });
    expect(checkAnswer(undefined, 'plain text')).toEqual({ ok: true });
    expect(checkAnswer({ format: 'markdown' }, '   ')).toEqual({ ok: false, reason: 'the answer is empty' });
  });

  it('checks well-formedness before the schema, then the schema', () => {
    const spec = { format: 'json', schema: { type: 'object', required: ['summary'] } };
    expect(checkAnswer(spec, 'not json')).toMatchObject({ reason: /not valid json/ });
    expect(checkAnswer(spec, '{}')).toMatchObject({ reason: /does not match the schema: .*summary/ });
    expect(checkAnswer(spec, '{"summary": "ok"}')).toEqual({ ok: true });
    expect(checkAnswer({ format: 'yaml', schema: { type: 'array' } }, 'a: 1')).toMatchObject({ ok: false });
  });
});

describe('submit_output', () => {
  const bp = (): Blueprint => {
    const r = loadToml(
      '[agent.output]\nformat = "json"\nschema = { type = "object", required = ["n"] }\n[stages.a]\nmode = "output"\n[stages.b]\nmode = "output"\n[stages.b.output]\nformat = "xml"\n',
    );
    if (!r.blueprint) throw new Error(JSON.stringify(r.diagnostics));
    return r.blueprint;
  };

  it('accepts a valid answer with its label and refuses an invalid one with the reason', () => {
    expect(submitOutput(bp(), 'a', { content: '{"n": 1}' })).toMatchObject({ ok: true, format: 'json' });
    const refused = submitOutput(bp(), 'a', { content: '{}' });
    expect(refused).toMatchObject({ ok: false, reply: expect.stringMatching(/^\[output-invalid\] .*property 'n'/) });
    expect(submitOutput(bp(), 'a', {})).toMatchObject({ ok: false, reply: /^\[bad-argument\]/ });
  });

  it('a stage naming another format drops the agent schema; the launch request wins over both', () => {
    expect(stageOutputSpec(bp(), 'b')).toEqual({ format: 'xml' });
    const launched = withLaunchOutput(bp(), { format: 'yaml', instructions: 'Keys in lower case.' });
    expect(stageOutputSpec(launched, 'a')).toEqual({ format: 'yaml', instructions: 'Keys in lower case.' });
    expect(submitOutput(launched, 'a', { content: 'n: [1' }).ok).toBe(false);
    expect(submitOutputDescription(stageOutputSpec(launched, 'a'))).toContain('Instructions: Keys in lower case.');
  });
});
