/**
 * A script tool's declaration (docs/reference/script-tools.md#declaring-a-tool):
 * the `// @` comment lines of its `.rhai` file, or a sibling `.toml` with a
 * `[tool]` table, which then wins over the comments, as in the original
 * Leviath. Pure: text in, a declaration or the sentence that says what is
 * wrong with it out.
 */
import { parse, TomlError } from 'smol-toml';

/** The JSON types a `// @param` line may name. */
export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;

/** What a `// @requires` line may name; every one is available wherever Leviath runs. */
export const CAPABILITIES = ['network', 'shell', 'filesystem'] as const;

/** Names every model API accepts for a function. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ParamDecl {
  name: string;
  required: boolean;
  /** The property's JSON Schema: `{ type, description }`, or a `.toml` param's own `schema` table. */
  schema: Record<string, unknown>;
}

export interface ToolDecl {
  name: string;
  description: string;
  params: ParamDecl[];
  requires: string[];
}

export type DeclResult = { ok: true; decl: ToolDecl } | { ok: false; problem: string };

const bad = (problem: string): DeclResult => ({ ok: false, problem });

/** `<name> <type> <required|optional> "<description>"`, the argument of one `// @param` line. */
function paramLine(arg: string): ParamDecl | string {
  const match = /^(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(arg);
  if (!match) return `the line \`// @param ${arg}\` needs \`<name> <type> <required|optional> "<description>"\``;
  const [, name = '', type = '', need = '', rest = ''] = match;
  if (need !== 'required' && need !== 'optional')
    return `the parameter \`${name}\` says \`${need}\` where \`required\` or \`optional\` belongs`;
  if (!(PARAM_TYPES as readonly string[]).includes(type))
    return `the parameter \`${name}\` has the type \`${type}\`, which is not one of ${PARAM_TYPES.join(', ')}`;
  const description = rest.trim().replace(/^"(.*)"$/, '$1');
  return { name, required: need === 'required', schema: { type, description } };
}

/** The declaration written in the script's own `// @` comment lines. */
export function parseAnnotations(source: string): DeclResult {
  let name: string | undefined;
  let description = '';
  const params: ParamDecl[] = [];
  const requires: string[] = [];
  for (const raw of source.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line.startsWith('//')) continue;
    const directive = line.slice(2).trim();
    if (!directive.startsWith('@')) continue;
    const [, keyword = '', arg = ''] = /^@(\S*)\s*(.*)$/.exec(directive) ?? [];
    switch (keyword) {
      case 'tool':
        if (arg.trim() === '') return bad('its `// @tool` line names no tool; write `// @tool <name>`');
        name = arg.trim();
        break;
      case 'description':
        description = arg.trim();
        break;
      case 'param': {
        const param = paramLine(arg.trim());
        if (typeof param === 'string') return bad(param);
        params.push(param);
        break;
      }
      case 'requires':
        requires.push(...arg.split(/[\s,]+/).filter((c) => c !== ''));
        break;
      // Other `// @` words are comments, as in the original.
    }
  }
  if (name === undefined) return bad('it has no `// @tool <name>` line, so it declares no tool');
  return checked({ name, description, params, requires });
}

const TOML_TOOL_KEYS = ['name', 'description', 'params', 'requires'];
const TOML_PARAM_KEYS = ['name', 'type', 'required', 'description', 'schema'];

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function unknownKey(table: Record<string, unknown>, known: readonly string[], where: string): string | undefined {
  const extra = Object.keys(table).find((k) => !known.includes(k));
  return extra === undefined ? undefined : `${where} has the key \`${extra}\`, which is not one of ${known.join(', ')}`;
}

/** One `[[tool.params]]` entry. */
function tomlParam(entry: unknown, i: number): ParamDecl | string {
  if (!isTable(entry)) return `[[tool.params]] entry ${i + 1} is not a table`;
  const extra = unknownKey(entry, TOML_PARAM_KEYS, `[[tool.params]] entry ${i + 1}`);
  if (extra) return extra;
  const { name, type, required, description, schema } = entry;
  if (typeof name !== 'string' || name === '') return `[[tool.params]] entry ${i + 1} needs a \`name\``;
  if (required !== undefined && typeof required !== 'boolean')
    return `the parameter \`${name}\` has a \`required\` that is not true or false`;
  if (description !== undefined && typeof description !== 'string')
    return `the parameter \`${name}\` has a \`description\` that is not a string`;
  if (schema !== undefined) {
    if (!isTable(schema)) return `the parameter \`${name}\` has a \`schema\` that is not a table`;
    return { name, required: required === true, schema: { ...schema } };
  }
  if (typeof type !== 'string' || !(PARAM_TYPES as readonly string[]).includes(type))
    return `the parameter \`${name}\` needs a \`type\` (one of ${PARAM_TYPES.join(', ')}) or a \`schema\` table`;
  return { name, required: required === true, schema: { type, description: description ?? '' } };
}

/** The declaration of a sibling `<name>.toml`, which wins over the script's comment lines. */
export function parseToolToml(text: string): DeclResult {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
    return bad(`it is not valid TOML${where}`);
  }
  const tool = doc.tool;
  if (!isTable(tool)) return bad('it has no `[tool]` table');
  const extra = unknownKey(doc, ['tool'], 'the file') ?? unknownKey(tool, TOML_TOOL_KEYS, '[tool]');
  if (extra) return bad(extra);
  const { name, description, params, requires } = tool;
  if (typeof name !== 'string' || name.trim() === '') return bad('its `[tool] name` is missing or empty');
  if (description !== undefined && typeof description !== 'string')
    return bad('its `[tool] description` is not a string');
  if (requires !== undefined && (!Array.isArray(requires) || !requires.every((r) => typeof r === 'string')))
    return bad('its `[tool] requires` is not an array of strings');
  if (params !== undefined && !Array.isArray(params)) return bad('its `[[tool.params]]` is not an array of tables');
  const decls: ParamDecl[] = [];
  for (const [i, entry] of (params ?? []).entries()) {
    const param = tomlParam(entry, i);
    if (typeof param === 'string') return bad(param);
    decls.push(param);
  }
  return checked({
    name: name.trim(),
    description: description ?? '',
    params: decls,
    requires: (requires as string[] | undefined) ?? [],
  });
}

/** The rules both forms share: a name a model API accepts, parameters named once, capabilities known. */
function checked(decl: ToolDecl): DeclResult {
  if (!TOOL_NAME.test(decl.name))
    return bad(
      `the tool name \`${decl.name}\` is not 1 to 64 letters, digits, \`_\` or \`-\`, which every model API requires`,
    );
  const seen = new Set<string>();
  for (const p of decl.params) {
    if (seen.has(p.name)) return bad(`the parameter \`${p.name}\` is declared twice`);
    seen.add(p.name);
  }
  const unknown = decl.requires.find((c) => !(CAPABILITIES as readonly string[]).includes(c));
  if (unknown !== undefined)
    return bad(`it requires the capability \`${unknown}\`, which is not one of ${CAPABILITIES.join(', ')}`);
  return { ok: true, decl };
}

/** The JSON Schema of the tool's arguments, as the model sees it. */
export function parametersSchema(decl: ToolDecl): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(decl.params.map((p) => [p.name, p.schema])),
    required: decl.params.filter((p) => p.required).map((p) => p.name),
  };
}
