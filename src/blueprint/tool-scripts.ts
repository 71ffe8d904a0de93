/**
 * The blueprint's Rhai script tools (docs/reference/script-tools.md): every
 * `tools/*.rhai` file of the blueprint directory, then of the global tools
 * folder every blueprint shares (the original's `~/.leviath/tools/`), declares
 * one tool, in its `// @` comment lines or a sibling `.toml`. Each is read,
 * declared, checked against the names the runtime already answers and
 * compiled here, at load, so the blueprint carries the script and no worker
 * reads either folder.
 */
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Diagnostic } from '../errors.js';
import { compileSchema } from '../outputs/check.js';
import { compile } from '../rhai/index.js';
import type { Blueprint, ScriptToolDef } from '../shapes/frozen-blueprint.js';
import { TOOL_ALIASES } from '../tools/builtin-names.js';
import { type Code, severityOf } from './codes.js';
import { Findings } from './findings.js';
import { serverOfName } from './mcp-servers.js';
import { inside, realOrSelf } from './scripts.js';
import { parametersSchema, parseAnnotations, parseToolToml, type ToolDecl } from './tool-declaration.js';
import { UNBUILT_TOOLS } from './unsupported.js';

export const TOOLS_DIR = 'tools';

/** A folder of script tools: where it is, what its scripts must lie inside, and how messages name it. */
interface ToolFolder {
  dir: string;
  root: string;
  /** `tools` for the blueprint's own, the absolute path for the global folder. */
  label: string;
  /** What a script must lie inside, as messages say it. */
  rootName: string;
}

/**
 * What reading the folders found: the tools, the names whose script was
 * refused (already reported), and the names a script declares that a tool of
 * the runtime answers instead (`script-tool-shadowed`).
 */
export interface ScriptTools {
  tools: ScriptToolDef[];
  refused: Set<string>;
  shadowed: Set<string>;
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Reads `tools/` of the blueprint directory, then `globalDir` (undefined: none),
 * whose tool of a name the blueprint's own folder already declares is left out:
 * the agent's own tool shadows the shared one. `reserved` are the names the
 * runtime answers itself; `mcpServers` the user's configured servers, whose
 * `<server>__<tool>` names an MCP tool keeps.
 */
export function readScriptTools(
  bp: Blueprint,
  findings: Findings,
  reserved: readonly string[],
  mcpServers: readonly string[],
  globalDir?: string,
): ScriptTools {
  const found: ScriptTools = { tools: [], refused: new Set(), shadowed: new Set() };
  const own: ToolFolder = {
    dir: join(bp.dir, TOOLS_DIR),
    root: bp.dir,
    label: TOOLS_DIR,
    rootName: 'the blueprint directory',
  };
  readFolder(own, findings, reserved, mcpServers, found);
  if (globalDir !== undefined && resolve(globalDir) !== resolve(own.dir)) {
    const dir = resolve(globalDir);
    const shared: ToolFolder = { dir, root: dir, label: dir, rootName: 'the global tools folder' };
    readFolder(shared, findings, reserved, mcpServers, found, new Set(found.tools.map((t) => t.name)));
  }
  return found;
}

/**
 * What a run with `[agent] dynamic_tools` finds in its workdir's `tools/`
 * (docs/reference/script-tools.md#tools-a-run-writes): read by the rules of a
 * blueprint's own folder, a script that must lie inside the workdir; what a
 * script got wrong comes back as text, one line each, for the call that
 * wanted it. Read by a tool worker, never by the workflow.
 */
export function readRunTools(
  workdir: string,
  reserved: readonly string[],
): { tools: ScriptToolDef[]; problems: string[] } {
  const root = resolve(workdir);
  const folder: ToolFolder = { dir: join(root, TOOLS_DIR), root, label: TOOLS_DIR, rootName: 'the workdir' };
  const findings = new Findings(folder.dir);
  const found: ScriptTools = { tools: [], refused: new Set(), shadowed: new Set() };
  readFolder(folder, findings, reserved, [], found);
  return {
    tools: found.tools,
    problems: findings.list.map((d) => `${d.message}${d.line ? ` (line ${d.line})` : ''}`),
  };
}

function readFolder(
  folder: ToolFolder,
  findings: Findings,
  reserved: readonly string[],
  mcpServers: readonly string[],
  found: ScriptTools,
  shadowedBy: ReadonlySet<string> = new Set(),
): void {
  const { dir, label } = folder;
  const files = entries(dir)
    .filter((e) => !e.isDirectory())
    .map((e) => e.name)
    .sort();
  const report = (code: Code, file: string, message: string, at?: { line: number; column: number }) => {
    const d: Diagnostic = { code, severity: severityOf(code), message, file: join(dir, file) };
    if (at && at.line > 0) {
      d.line = at.line;
      d.column = at.column;
    }
    findings.addAll([d]);
  };
  for (const toml of files.filter((f) => f.endsWith('.toml'))) {
    const stem = toml.slice(0, -'.toml'.length);
    if (!files.includes(`${stem}.rhai`)) {
      report(
        'script-tool-missing',
        toml,
        `${label}/${toml} declares a script tool, but its script ${label}/${stem}.rhai does not exist; add the script beside it or remove the .toml.`,
      );
      found.refused.add(stem);
    }
  }
  for (const file of files.filter((f) => f.endsWith('.rhai'))) {
    const stem = file.slice(0, -'.rhai'.length);
    const declared = declareOne(folder, file, report);
    if (!declared) {
      found.refused.add(stem);
      continue;
    }
    if (shadowedBy.has(declared.decl.name)) continue;
    // A name already taken means the script never runs, so it is not compiled either.
    const taken = takenBy(declared.decl.name, reserved, mcpServers, found.tools);
    if (taken) {
      found.shadowed.add(declared.decl.name);
      report(
        'script-tool-shadowed',
        file,
        `${label}/${file} declares the tool \`${declared.decl.name}\`, which is ${taken}, so that tool is used and this script never runs; give the script another name in its \`// @tool\` line.`,
      );
      continue;
    }
    const tool = compileOne(declared, label, report);
    if (tool) found.tools.push(tool);
    else found.refused.add(stem);
  }
}

/** What already answers to `name`, or undefined when a script may take it. */
function takenBy(
  name: string,
  reserved: readonly string[],
  mcpServers: readonly string[],
  earlier: readonly ScriptToolDef[],
): string | undefined {
  if (reserved.includes(name) || TOOL_ALIASES[name] !== undefined) return 'a tool Leviath answers itself';
  if (UNBUILT_TOOLS[name] !== undefined) return 'a built-in tool of the original Leviath, whose built-in wins there';
  const server = serverOfName(name);
  if (server !== undefined && mcpServers.includes(server)) return `a tool name of your MCP server "${server}"`;
  const first = earlier.find((t) => t.name === name);
  if (first) return `already declared by ${first.path}`;
  return undefined;
}

type Report = (code: Code, file: string, message: string, at?: { line: number; column: number }) => void;

/** A script read and declared, not yet compiled. */
interface Declared {
  decl: ToolDecl;
  /** The script's file, and the file its declaration came from (the `.toml` when there is one). */
  file: string;
  declFile: string;
  source: string;
  /** Whether the declaration wrote schema tables of its own, which must be checked as JSON Schema. */
  ownSchemas: boolean;
}

/** One script: inside its folder's root, readable, and declared. */
function declareOne(folder: ToolFolder, file: string, report: Report): Declared | undefined {
  const { dir, label } = folder;
  const rel = `${label}/${file}`;
  const full = resolve(dir, file);
  if (!inside(realOrSelf(folder.root), realOrSelf(full))) {
    report(
      'script-tool-missing',
      file,
      `${rel} lies outside ${folder.rootName} (it is a link out of it); script tools must live inside it, so copy the script there.`,
    );
    return undefined;
  }
  let source: string;
  try {
    source = readFileSync(full, 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    report(
      'script-tool-missing',
      file,
      `${rel} ${missing ? 'is a link to a file that does not exist' : 'cannot be read'}; put the script itself in ${label}/ or remove the entry.`,
    );
    return undefined;
  }
  const tomlFile = `${file.slice(0, -'.rhai'.length)}.toml`;
  let tomlText: string | undefined;
  try {
    tomlText = readFileSync(join(dir, tomlFile), 'utf8');
  } catch {
    tomlText = undefined;
  }
  const declFile = tomlText === undefined ? file : tomlFile;
  const declared = tomlText === undefined ? parseAnnotations(source) : parseToolToml(tomlText);
  if (!declared.ok) {
    report('script-tool-bad-schema', declFile, `${label}/${declFile} declares no usable tool: ${declared.problem}.`);
    return undefined;
  }
  return { decl: declared.decl, file, declFile, source, ownSchemas: tomlText !== undefined };
}

/**
 * The declared schema and the script, compiled. Parameters of `// @param`
 * lines are `{ type, description }` with a checked type, always a valid
 * schema; only a `.toml`'s own tables need the JSON Schema compiler.
 */
function compileOne(d: Declared, label: string, report: Report): ScriptToolDef | undefined {
  const rel = `${label}/${d.file}`;
  const parameters = parametersSchema(d.decl);
  if (d.ownSchemas) {
    const schema = compileSchema(parameters);
    if (!('validate' in schema)) {
      report(
        'script-tool-bad-schema',
        d.declFile,
        `The parameters ${label}/${d.declFile} declares for \`${d.decl.name}\` are not a JSON Schema a model can be given (${schema.ok ? '' : schema.reason}); fix the parameter's type or schema.`,
      );
      return undefined;
    }
  }
  const compiled = compile(d.source, rel);
  if (!compiled.ok) {
    report(
      'script-tool-syntax',
      d.file,
      `The script tool \`${d.decl.name}\` does not compile: ${compiled.error.message}; fix the script (docs/rhai.md lists the Rhai this interpreter runs).`,
      compiled.error,
    );
    return undefined;
  }
  return toDef(d.decl, parameters, rel, d.source);
}

function toDef(decl: ToolDecl, parameters: Record<string, unknown>, path: string, source: string): ScriptToolDef {
  return { name: decl.name, description: decl.description || `The script tool ${path}.`, parameters, path, source };
}
