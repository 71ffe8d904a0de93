/**
 * Checking a submitted final answer: formats Leviath can parse must parse,
 * and a JSON Schema, when given, must accept the answer. Well-formedness is
 * checked first, so "this is not JSON" comes back before missing properties.
 * Runs in activities and the loader, never in workflow code (ajv compiles
 * schemas to functions).
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';
import type * as CsvSync from 'csv-parse/sync';
import type * as FastXml from 'fast-xml-parser';
import { parse as parseToml } from 'smol-toml';
import type * as Yaml from 'yaml';
import type { OutputSpec } from '../shapes/frozen-blueprint.js';

// The checkers load on first use: most commands (and most blueprints) never check a format,
// and together they are a large part of what `lev` would otherwise load at start.
const require = createRequire(import.meta.url);
let ajvInstance: AjvClass | undefined;
function ajvCompiler(): AjvClass {
  ajvInstance ??= new (require('ajv') as { Ajv: typeof AjvClass }).Ajv({ allErrors: true, strict: false });
  return ajvInstance;
}
const parseYaml = (text: string): unknown => (require('yaml') as typeof Yaml).parse(text);
const parseCsv = (text: string): unknown => (require('csv-parse/sync') as typeof CsvSync).parse(text);
const XMLValidator = {
  validate: (text: string) => (require('fast-xml-parser') as typeof FastXml).XMLValidator.validate(text),
};

/** Format labels whose text is parsed; any other label is carried through unchecked. */
export const CHECKED_FORMATS = ['json', 'xml', 'yaml', 'yml', 'csv', 'toml'] as const;

export type CheckResult = { ok: true } | { ok: false; reason: string };

const compiled = new Map<string, ValidateFunction>();

export function compileSchema(schema: Record<string, unknown>): { ok: true; validate: ValidateFunction } | CheckResult {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) return { ok: true, validate: hit };
  try {
    const validate = ajvCompiler().compile(schema);
    compiled.set(key, validate);
    return { ok: true, validate };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'it does not parse';
}

/** Parses `text` as `format`; the parsed value for JSON, YAML and TOML (what a schema checks). */
function parseAs(format: string, text: string): { ok: true; value?: unknown } | { ok: false; reason: string } {
  try {
    switch (format) {
      case 'json':
        return { ok: true, value: JSON.parse(text) };
      case 'yaml':
      case 'yml':
        return { ok: true, value: parseYaml(text) };
      case 'toml':
        return { ok: true, value: parseToml(text) };
      case 'csv':
        parseCsv(text);
        return { ok: true };
      case 'xml': {
        const verdict = XMLValidator.validate(text);
        if (verdict === true) return { ok: true };
        return { ok: false, reason: `${verdict.err.msg} (line ${verdict.err.line}, column ${verdict.err.col})` };
      }
      default:
        return { ok: true };
    }
  } catch (err) {
    return { ok: false, reason: message(err) };
  }
}

/** Checks an answer against its spec: the format parses, then the schema (if any) accepts it. */
export function checkAnswer(spec: OutputSpec | undefined, text: string): CheckResult {
  if (text.trim() === '') return { ok: false, reason: 'the answer is empty' };
  const format = spec?.format?.toLowerCase();
  const schema = spec?.schema;
  // A schema checks parsed data; without a named format the answer is read as JSON.
  const parseFormat = format ?? (schema ? 'json' : undefined);
  if (parseFormat === undefined) return { ok: true };
  const parsed = parseAs(parseFormat, text);
  if (!parsed.ok) return { ok: false, reason: `the answer is not valid ${parseFormat}: ${parsed.reason}` };
  if (!schema || !('value' in parsed)) return { ok: true };
  const compiledSchema = compileSchema(schema);
  if (!('validate' in compiledSchema)) return { ok: true };
  const validate = compiledSchema.validate;
  if (validate(parsed.value)) return { ok: true };
  return { ok: false, reason: `the answer does not match the schema: ${ajvCompiler().errorsText(validate.errors)}` };
}
