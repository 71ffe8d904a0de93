import { describe, expect, it } from 'vitest';
import { AGENT_TOOLS, BUILTIN_TOOLS, CONTEXT_TOOLS } from '../../src/tools/builtin-names.js';
import { toolSpecs } from '../../src/tools/specs.js';

describe('toolSpecs', () => {
  it('covers every built-in, context and sub-agent tool with an object schema', () => {
    const specs = toolSpecs([...BUILTIN_TOOLS, ...CONTEXT_TOOLS, ...AGENT_TOOLS]);
    expect(specs.map((s) => s.name)).toEqual([...BUILTIN_TOOLS, ...CONTEXT_TOOLS, ...AGENT_TOOLS]);
    for (const spec of specs) {
      expect(spec.description.length).toBeGreaterThan(10);
      expect(spec.parameters).toMatchObject({ type: 'object' });
      expect(JSON.parse(JSON.stringify(spec.parameters))).toEqual(spec.parameters);
    }
  });

  it('describes arguments the model must give', () => {
    const [read, edit] = toolSpecs(['read_file', 'edit_file']);
    expect(read?.parameters).toMatchObject({ required: ['path'], properties: { offset: { type: 'integer' } } });
    expect(edit?.parameters).toMatchObject({ required: ['path', 'old_string', 'new_string'] });
    const [fan, spawn] = toolSpecs(['fan_out', 'spawn_agent']);
    expect(fan?.parameters).toMatchObject({ required: ['items'], properties: { items: { type: 'array' } } });
    expect(spawn?.parameters).toMatchObject({ required: ['task'], properties: { wait: { type: 'boolean' } } });
    const [remove] = toolSpecs(['context_delete']);
    expect(remove?.parameters).toMatchObject({ required: ['region'], properties: { oldest: { minimum: 1 } } });
  });

  it("advertises a blueprint's script tool with its declared description and schema, in the order given", () => {
    const parameters = { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] };
    const owner = { name: 'lookup_owner', description: 'Who owns it', parameters, path: 'tools/o.rhai', source: '1' };
    expect(toolSpecs(['read_file', 'lookup_owner', 'nope'], [owner]).map((s) => s.name)).toEqual([
      'read_file',
      'lookup_owner',
    ]);
    expect(toolSpecs(['lookup_owner'], [owner])).toEqual([
      { name: 'lookup_owner', description: 'Who owns it', parameters },
    ]);
    expect(toolSpecs(['lookup_owner'])).toEqual([]);
  });

  it('resolves aliases and drops repeats and unknown names', () => {
    expect(toolSpecs(['bash', 'shell', 'nope']).map((s) => s.name)).toEqual(['shell']);
  });
});
