/**
 * The scripted provider's script: TOML parsed with smol-toml and checked with
 * zod, so a typo in a script is an error with a path, never a silent no-op.
 * The format is documented in docs/scripted.md.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { type Diagnostic, LevError } from '../errors.js';
import { PROVIDER_ERROR_KINDS } from './provider-errors.js';
import { GATE_NAME, GATE_NAME_RULE } from './scripted-gates.js';

const nonNegativeInt = z.number().int().nonnegative();

const ToolCallSchema = z
  .strictObject({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
    arguments_raw: z.string().optional(),
  })
  .refine((c) => c.arguments === undefined || c.arguments_raw === undefined, {
    message: 'give either `arguments` or `arguments_raw`, not both',
  });

const FailSchema = z.strictObject({
  kind: z.enum(PROVIDER_ERROR_KINDS),
  /** Attempts 1..attempts fail; the next attempt is served. */
  attempts: z.number().int().positive().default(1),
  retry_after_ms: nonNegativeInt.optional(),
});

const TurnSchema = z.strictObject({
  stage: z.string().min(1).optional(),
  item: z.string().min(1).optional(),
  text: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  latency_ms: nonNegativeInt.optional(),
  /** Answered only once this gate is open (docs/scripted.md#gates). */
  gate: z.string().regex(GATE_NAME, GATE_NAME_RULE).optional(),
  /** The reply's text streams up to its middle, then waits for this gate (docs/scripted.md#gates). */
  text_gate: z.string().regex(GATE_NAME, GATE_NAME_RULE).optional(),
  reported_prompt_tokens: nonNegativeInt.optional(),
  fail: FailSchema.optional(),
});

export const ScriptSchema = z.strictObject({
  latency_ms: nonNegativeInt.optional(),
  repeat: z.boolean().optional(),
  choices: z.record(z.string(), z.string().min(1)).optional(),
  turns: z.array(TurnSchema).default([]),
});

/** A script as written in TOML (snake_case keys); `registerScript` accepts this shape too. */
export type ScriptInput = z.input<typeof ScriptSchema>;
export type Script = z.output<typeof ScriptSchema>;
export type ScriptTurn = Script['turns'][number];

const FORMAT_HINT = 'see docs/scripted.md for the format';

function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** Validates an already-parsed script; `source` names it in messages. */
export function validateScript(value: unknown, source: string): Script {
  const result = ScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const diagnostics: Diagnostic[] = result.error.issues.map((issue) => ({
    code: 'scripted-script-invalid',
    severity: 'error',
    message: issue.message,
    path: issuePath(issue.path),
    file: source,
  }));
  const first = diagnostics[0];
  const where = first?.path ? ` at ${first.path}` : '';
  const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
  throw new LevError(
    'scripted-script-invalid',
    `Script ${source} is invalid${where}: ${first?.message ?? 'unknown problem'}${more}; fix it (${FORMAT_HINT}).`,
    diagnostics,
  );
}

/** Parses and validates TOML script text. */
export function parseScript(text: string, source: string): Script {
  let value: unknown;
  try {
    value = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const firstLine = err.message.split('\n')[0] ?? err.message;
      throw new LevError(
        'scripted-script-invalid',
        `Script ${source} is not valid TOML at line ${err.line}, column ${err.column}: ${firstLine}; fix the syntax (${FORMAT_HINT}).`,
        [
          {
            code: 'scripted-script-invalid',
            severity: 'error',
            message: firstLine,
            file: source,
            line: err.line,
            column: err.column,
          },
        ],
      );
    }
    throw err;
  }
  return validateScript(value, source);
}

const fileCache = new Map<string, { mtimeMs: number; size: number; script: Script }>();

/** Loads a script file, re-reading it only when it changed on disk. */
export function loadScriptFile(path: string, cwd: string = process.cwd()): Script {
  const full = resolve(cwd, path);
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(full);
  } catch {
    throw new LevError(
      'scripted-script-missing',
      `Script file ${full} does not exist; check LEVIATH_SCRIPT or the path in the model ref.`,
    );
  }
  const cached = fileCache.get(full);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.script;
  const script = parseScript(readFileSync(full, 'utf8'), full);
  fileCache.set(full, { mtimeMs: stat.mtimeMs, size: stat.size, script });
  return script;
}
