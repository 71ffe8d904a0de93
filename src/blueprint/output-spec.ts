/**
 * `[agent.output]` and `[stages.X.output]`: the shape a final answer takes.
 * The schema is compiled here once so a broken one is a validation error,
 * not a surprise for the model at the end of a long run; a Rhai validator
 * likewise, in ./output-validators.ts.
 */
import { compileSchema } from '../outputs/check.js';
import type { OutputSpec } from '../shapes/frozen-blueprint.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';

const OUTPUT_KEYS = ['format', 'instructions', 'example', 'schema', 'validator'] as const;

export function parseOutputSpec(value: unknown, at: KeyPath, findings: Findings): OutputSpec | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `\`output\` must be a table such as { format = "json", instructions = "..." }, not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys([...OUTPUT_KEYS], 'unknown-key', 'An output table');
  const spec: OutputSpec = {};
  const format = t.string('format')?.trim();
  if (format) spec.format = format;
  const instructions = t.string('instructions');
  if (instructions?.trim()) spec.instructions = instructions.trim();
  const example = t.string('example');
  if (example?.trim()) spec.example = example.trim();
  // Read and compiled with the other scripts once the blueprint is built (./output-validators.ts).
  const validator = t.string('validator');
  if (validator !== undefined) spec.validator = validator;
  if (t.has('schema')) {
    const schema = t.raw('schema');
    if (!isTable(schema)) {
      findings.add(
        'bad-output-schema',
        `\`schema\` must be a JSON Schema written as a table, such as { type = "object", required = ["summary"] }, not ${describeValue(schema)}.`,
        t.at('schema'),
      );
    } else {
      const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
      const compiled = compileSchema(plain);
      if ('validate' in compiled) spec.schema = plain;
      else if (!compiled.ok)
        findings.add(
          'bad-output-schema',
          `\`schema\` is not a valid JSON Schema (${compiled.reason}); fix it so answers can be checked.`,
          t.at('schema'),
        );
    }
  }
  return spec;
}
