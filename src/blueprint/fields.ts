/**
 * Typed reads of one TOML table, checked with zod. Each read reports a
 * coded diagnostic that says what to write instead, and returns undefined
 * for a missing or broken value so the caller applies its default.
 */
import { z } from 'zod';
import type { Code } from './codes.js';
import { describeValue, didYouMean, type Findings, type KeyPath, listChoices } from './findings.js';

export type Table = Record<string, unknown>;

const stringSchema = z.string();
const booleanSchema = z.boolean();
const stringArraySchema = z.array(z.string());
const numberSchema = z.number().finite();

// Schemas are built once: building one per key read dominated the time spent on large files.
const integerSchemas = new Map<number, z.ZodNumber>();
function integerSchema(min: number): z.ZodNumber {
  let schema = integerSchemas.get(min);
  if (!schema) {
    schema = z.number().int().min(min);
    integerSchemas.set(min, schema);
  }
  return schema;
}
const enumSchemas = new WeakMap<readonly string[], z.ZodType>();
function enumSchema(choices: readonly string[]): z.ZodType {
  let schema = enumSchemas.get(choices);
  if (!schema) {
    schema = z.enum(choices as [string, ...string[]]);
    enumSchemas.set(choices, schema);
  }
  return schema;
}

/** A TOML table: smol-toml gives plain objects for tables, arrays for arrays and Date subclasses for dates. */
export function isTable(value: unknown): value is Table {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

export class TableReader {
  constructor(
    readonly table: Table,
    readonly path: KeyPath,
    readonly findings: Findings,
  ) {}

  has(key: string): boolean {
    return Object.hasOwn(this.table, key);
  }

  raw(key: string): unknown {
    return this.has(key) ? this.table[key] : undefined;
  }

  at(key: string): KeyPath {
    return [...this.path, key];
  }

  /** Reports every key outside `allowed` with `code`, suggesting the closest allowed key. */
  unknownKeys(allowed: readonly string[], code: Code, what: string): void {
    for (const key of Object.keys(this.table)) {
      if (allowed.includes(key)) continue;
      this.findings.add(
        code,
        `${what} has no key "${key}"${didYouMean(key, allowed)}; the keys it reads are ${listChoices(allowed)}.`,
        this.at(key),
      );
    }
  }

  string(key: string, code: Code = 'bad-value'): string | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (stringSchema.safeParse(value).success) return value as string;
    this.findings.add(
      code,
      `${this.name(key)} must be a string, not ${describeValue(value)}; write ${key} = "..." instead.`,
      this.at(key),
    );
    return undefined;
  }

  boolean(key: string): boolean | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (booleanSchema.safeParse(value).success) return value as boolean;
    this.findings.add(
      'bad-value',
      `${this.name(key)} must be true or false, not ${describeValue(value)}.`,
      this.at(key),
    );
    return undefined;
  }

  /** An integer >= `min`. */
  integer(key: string, min: number, code: Code = 'bad-size'): number | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (integerSchema(min).safeParse(value).success) return value as number;
    const rule = min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
    this.findings.add(
      code,
      `${this.name(key)} must be ${rule}, not ${describeValue(value)}; write a whole number of at least ${min}.`,
      this.at(key),
    );
    return undefined;
  }

  /** A finite number in [min, max]. */
  number(key: string, min: number, max: number): number | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (numberSchema.safeParse(value).success && (value as number) >= min && (value as number) <= max)
      return value as number;
    this.findings.add(
      'bad-value',
      `${this.name(key)} must be a number from ${min} to ${max}, not ${describeValue(value)}.`,
      this.at(key),
    );
    return undefined;
  }

  stringArray(key: string, code: Code = 'bad-value'): string[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (stringArraySchema.safeParse(value).success) return [...(value as string[])];
    this.findings.add(
      code,
      `${this.name(key)} must be an array of strings, such as ${key} = ["a", "b"]; it is ${describeValue(value)}.`,
      this.at(key),
    );
    return undefined;
  }

  enumeration<T extends string>(
    key: string,
    choices: readonly T[],
    code: Code,
    aliases: Record<string, T> = {},
  ): T | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    const parsed = enumSchema(choices).safeParse(
      typeof value === 'string' ? (Object.hasOwn(aliases, value) ? aliases[value] : value) : value,
    );
    if (parsed.success) return parsed.data as T;
    const hint = typeof value === 'string' ? didYouMean(value, choices) : '';
    this.findings.add(
      code,
      `${this.name(key)} is ${describeValue(value)}${hint}; write one of ${listChoices(choices)}.`,
      this.at(key),
    );
    return undefined;
  }

  table_(key: string, example: string): TableReader | undefined {
    if (!this.has(key)) return undefined;
    const value = this.table[key];
    if (isTable(value)) return new TableReader(value, this.at(key), this.findings);
    this.findings.add(
      'bad-value',
      `${this.name(key)} must be a table, such as ${example}; it is ${describeValue(value)}.`,
      this.at(key),
    );
    return undefined;
  }

  private name(key: string): string {
    return `\`${key}\` in [${formatTablePath(this.path)}]`;
  }
}

function formatTablePath(path: KeyPath): string {
  return path.length === 0
    ? 'top level'
    : path.map((s) => (/^[A-Za-z0-9_-]+$/.test(String(s)) ? s : JSON.stringify(String(s)))).join('.');
}
