/**
 * `lev run` flags of the original Leviath (docs/reference/commands.md#lev-run-flags):
 * `@FILE` values, `--output-schema`, and `--allow` / `--yolo`, which turn
 * `ask` into `allow` for the run and never lift a `deny`.
 */
import { readFileSync } from 'node:fs';
import { LevError } from '../errors.js';
import { compileSchema } from '../outputs/check.js';
import type { Blueprint, PermissionMode, ToolPermissions } from '../shapes/frozen-blueprint.js';
import { canonicalTool } from '../tools/builtin-names.js';

/** A flag value, or the text of the file it names when it starts with `@` (`--task @brief.md`). */
export function valueOrFile(value: string, flag: string): string {
  if (!value.startsWith('@')) return value;
  const path = value.slice(1);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new LevError(
      'input-file-unreadable',
      `${flag} ${value} names a file that cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give a readable file after the @, or the text itself.`,
    );
  }
}

/** `--output-schema <JSON|@FILE>`: a JSON Schema the final answer must satisfy. */
export function parseOutputSchema(value: string): Record<string, unknown> {
  const text = valueOrFile(value, '--output-schema');
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new LevError(
      'output-schema-invalid',
      `--output-schema is not JSON (${(err as Error).message}); give a JSON Schema object or @file.json.`,
    );
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new LevError('output-schema-invalid', '--output-schema must be a JSON object, such as {"type":"object"}.');
  const compiled = compileSchema(schema as Record<string, unknown>);
  if (!('validate' in compiled))
    throw new LevError(
      'output-schema-invalid',
      `--output-schema is not a valid JSON Schema (${compiled.ok ? 'unknown reason' : compiled.reason}); fix it so answers can be checked.`,
    );
  return schema as Record<string, unknown>;
}

export interface Approvals {
  /** `--yolo`: every `ask` becomes `allow`. */
  yolo?: boolean;
  /** `--allow TOOL`: this tool's `ask` becomes `allow`, and it is allowed where nothing names it. */
  allow?: readonly string[];
}

function loosen(p: ToolPermissions, approvals: Approvals): ToolPermissions {
  const allowed = new Set((approvals.allow ?? []).map(canonicalTool));
  const lift = (mode: PermissionMode | undefined, tool?: string): PermissionMode | undefined =>
    mode === 'ask' && (approvals.yolo || (tool !== undefined && allowed.has(tool))) ? 'allow' : mode;
  const tools: Record<string, PermissionMode> = {};
  for (const [tool, mode] of Object.entries(p.tools)) tools[tool] = lift(mode, tool) ?? mode;
  // A level whose default is `ask` names every --allow tool, so the default does not catch it.
  for (const tool of allowed) if (tools[tool] === undefined && p.default === 'ask') tools[tool] = 'allow';
  const out: ToolPermissions = { tools };
  const def = lift(p.default);
  if (def !== undefined) out.default = def;
  return out;
}

/**
 * The blueprint (and every blueprint its workers run) with these approvals
 * given: a `deny` stays a `deny`, as in the original.
 */
export function withApprovals(bp: Blueprint, approvals: Approvals): Blueprint {
  if (!approvals.yolo && (approvals.allow ?? []).length === 0) return bp;
  const one = (b: Blueprint): Blueprint => ({
    ...b,
    toolPermissions: loosen(b.toolPermissions, approvals),
    stages: b.stages.map((s) =>
      s.toolPermissions ? { ...s, toolPermissions: loosen(s.toolPermissions, approvals) } : s,
    ),
  });
  const out = one(bp);
  if (bp.agents) out.agents = Object.fromEntries(Object.entries(bp.agents).map(([file, agent]) => [file, one(agent)]));
  return out;
}
