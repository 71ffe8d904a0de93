/**
 * Script tools at load (docs/reference/script-tools.md): the declaration in
 * comment lines or a sibling `.toml`, the names they may take, and what the
 * blueprint carries of them.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { parametersSchema, parseAnnotations, parseToolToml } from '../../src/blueprint/tool-declaration.js';
import { readRunTools } from '../../src/blueprint/tool-scripts.js';
import { emptyUserConfig } from '../../src/blueprint/user-config.js';
import { mcpGrants } from '../../src/runtime/mcp-grants.js';
import { RUNTIME_TOOLS } from '../../src/shapes/tool-catalogue.js';
import { globalToolsDir } from '../../src/state/locations.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const OWNER = `// @tool lookup_owner
// @description Name the team that owns a service
// @param service string required "the service named in the log"
// @param verbose boolean optional
// Ordinary comments stay comments; @requires lists what it needs.
// @requires filesystem, network
// @todo not a directive Leviath reads
let owners = #{ payments: "team-billing" };
owners[params.service] ?? "unowned"
`;

const GRANT = (tools: string) => `[stages.a]\navailable_tools = [${tools}]`;

describe('the declaration in comment lines', () => {
  it('reads the name, description, parameters and capabilities, ignoring other comments', () => {
    const r = parseAnnotations(OWNER);
    expect(r).toEqual({
      ok: true,
      decl: {
        name: 'lookup_owner',
        description: 'Name the team that owns a service',
        params: [
          { name: 'service', required: true, schema: { type: 'string', description: 'the service named in the log' } },
          { name: 'verbose', required: false, schema: { type: 'boolean', description: '' } },
        ],
        requires: ['filesystem', 'network'],
      },
    });
    if (r.ok)
      expect(parametersSchema(r.decl)).toEqual({
        type: 'object',
        properties: {
          service: { type: 'string', description: 'the service named in the log' },
          verbose: { type: 'boolean', description: '' },
        },
        required: ['service'],
      });
  });

  it('says what is wrong with a declaration that cannot be used', () => {
    const problem = (src: string) => {
      const r = parseAnnotations(src);
      return r.ok ? '' : r.problem;
    };
    expect(problem('fn run(args) { "owner" }')).toMatch(/no `\/\/ @tool <name>` line/);
    expect(problem('// @tool\n1')).toMatch(/names no tool/);
    expect(problem('// @tool a b\n1')).toMatch(/tool name `a b`/);
    expect(problem('// @tool t\n// @param x\n1')).toMatch(/needs `<name> <type> <required\|optional>/);
    expect(problem('// @tool t\n// @param x strng required\n1')).toMatch(/type `strng`/);
    expect(problem('// @tool t\n// @param x string maybe\n1')).toMatch(/says `maybe`/);
    expect(problem('// @tool t\n// @param x string required\n// @param x integer optional\n1')).toMatch(
      /declared twice/,
    );
    expect(problem('// @tool t\n// @requires gpu\n1')).toMatch(/capability `gpu`/);
  });
});

describe('the declaration in a sibling .toml', () => {
  it('reads [tool] and its params, a schema table taken as written', () => {
    const r = parseToolToml(`[tool]
name = "export"
description = "Export in a chosen format"
requires = ["filesystem"]

[[tool.params]]
name = "format"
required = true
schema = { type = "string", enum = ["json", "yaml"], description = "output format" }

[[tool.params]]
name = "limit"
type = "integer"
`);
    expect(r.ok && parametersSchema(r.decl)).toEqual({
      type: 'object',
      properties: {
        format: { type: 'string', enum: ['json', 'yaml'], description: 'output format' },
        limit: { type: 'integer', description: '' },
      },
      required: ['format'],
    });
  });

  it('refuses what the original would not read, and keys it does not have', () => {
    const problem = (text: string) => {
      const r = parseToolToml(text);
      return r.ok ? '' : r.problem;
    };
    expect(problem('[tool\nname = "x"')).toMatch(/not valid TOML at line 1/);
    expect(problem('name = "x"')).toMatch(/no `\[tool\]` table/);
    expect(problem('[tool]\nname = ""')).toMatch(/name` is missing or empty/);
    expect(problem('[tool]\nname = "x"\nparmas = []')).toMatch(/key `parmas`/);
    expect(problem('[tool]\nname = "x"\n[[tool.params]]\nname = "a"')).toMatch(/needs a `type`/);
    expect(problem('[tool]\nname = "x"\n[[tool.params]]\nname = "a"\ntype = "string"\nrequired = "yes"')).toMatch(
      /`required` that is not true or false/,
    );
    expect(problem('[tool]\nname = "x"\n[[tool.params]]\nname = "a"\nschema = "string"')).toMatch(
      /`schema` that is not a table/,
    );
  });
});

describe('loading the tools/ folder', () => {
  it('carries each script tool, grants it, and warns no more that script tools are not built', () => {
    const r = loadToml(GRANT('"lookup_owner", "read_file"'), { 'tools/lookup_owner.rhai': OWNER });
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unsupported-feature');
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['lookup_owner', 'read_file']);
    expect(r.blueprint?.scriptTools).toEqual([
      {
        name: 'lookup_owner',
        description: 'Name the team that owns a service',
        parameters: expect.objectContaining({ required: ['service'] }),
        path: 'tools/lookup_owner.rhai',
        source: OWNER,
      },
    ]);
  });

  it('names a tool by its // @tool line, not its file; a .toml beside the script wins', () => {
    const r = loadToml(GRANT('"owner"'), {
      'tools/a.rhai': '// @tool ignored\nparams.service',
      'tools/a.toml': '[tool]\nname = "owner"\ndescription = "From the toml"\n',
    });
    expect(r.blueprint?.scriptTools?.map((t) => [t.name, t.description])).toEqual([['owner', 'From the toml']]);
  });

  it('leaves a blueprint without tools/ as it was: no scriptTools key, so its JSON and hash stay the same', () => {
    const r = loadToml(GRANT('"read_file"'));
    expect(r.blueprint && 'scriptTools' in r.blueprint).toBe(false);
  });

  it('a misspelt grant of a script tool is unknown-tool with a did-you-mean', () => {
    const r = loadToml(GRANT('"lookup_ownr"'), { 'tools/lookup_owner.rhai': OWNER });
    const d = r.diagnostics.find((x) => x.code === 'unknown-tool');
    expect(d?.message).toMatch(/did you mean "lookup_owner"/);
  });

  it('a stage listing a broken script hears about it once, from the script', () => {
    const r = loadToml(GRANT('"lookup_owner"'), { 'tools/lookup_owner.rhai': '// @tool lookup_owner\nlet = 1;' });
    expect(codesOf(r)).toEqual(['script-tool-syntax']);
    const d = r.diagnostics[0];
    expect(d?.file).toMatch(/tools\/lookup_owner\.rhai$/);
    expect(d?.line).toBe(2);
  });

  it('refuses a script that is a link out of the blueprint directory, or a link to nothing', () => {
    const outside = mkdtempSync(join(tmpdir(), 'lev-outside-'));
    writeFileSync(join(outside, 'owner.rhai'), '// @tool owner\n1');
    const dir = mkdtempSync(join(tmpdir(), 'lev-bp-'));
    writeFileSync(join(dir, 'agent.toml'), GRANT('"owner"'));
    mkdirSync(join(dir, 'tools'));
    symlinkSync(join(outside, 'owner.rhai'), join(dir, 'tools', 'owner.rhai'));
    symlinkSync(join(dir, 'tools', 'gone.txt'), join(dir, 'tools', 'gone.rhai'));
    const r = loadBlueprint(dir, { workdir: dir });
    const messages = r.diagnostics.filter((d) => d.code === 'script-tool-missing').map((d) => d.message);
    expect(messages).toHaveLength(2);
    expect(messages.join('\n')).toMatch(/gone.rhai is a link to a file that does not exist/);
    expect(messages.join('\n')).toMatch(/owner.rhai lies outside the blueprint directory/);
  });

  it('a parameter schema a model cannot be given is script-tool-bad-schema', () => {
    const r = loadToml(GRANT('"x"'), {
      'tools/x.rhai': 'params.a',
      'tools/x.toml': '[tool]\nname = "x"\n[[tool.params]]\nname = "a"\nschema = { type = "strng" }\n',
    });
    const d = r.diagnostics.find((x) => x.code === 'script-tool-bad-schema');
    expect(d?.message).toMatch(/not a JSON Schema a model can be given/);
    expect(d?.file).toMatch(/tools\/x\.toml$/);
  });
});

const userConfig = {
  ...emptyUserConfig(),
  mcpServers: [
    { name: 'files', command: 'true', args: [], env: {}, headers: {}, sandbox: true, readPaths: [], timeoutSecs: 60 },
  ],
};

describe('names a script may not take', () => {
  it('a tool Leviath answers itself, an alias, or a built-in of the original: that tool wins', () => {
    const r = loadToml(GRANT('"web_fetch", "bash", "read_files"'), {
      'tools/a.rhai': '// @tool web_fetch\n1',
      'tools/b.rhai': '// @tool bash\n1',
      'tools/c.rhai': '// @tool read_files\n1',
    });
    expect(codesOf(r).filter((c) => c === 'script-tool-shadowed')).toHaveLength(3);
    expect(r.blueprint?.scriptTools).toBeUndefined();
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['web_fetch', 'shell']);
  });

  it('a name of a configured MCP server, and a name an earlier file declared', () => {
    const r = loadToml(
      GRANT('"owner"'),
      {
        'tools/a.rhai': '// @tool owner\n"first"',
        'tools/b.rhai': '// @tool owner\n"second"',
        'tools/c.rhai': '// @tool files__read\n"shadowed"',
      },
      { userConfig },
    );
    const messages = r.diagnostics.filter((d) => d.code === 'script-tool-shadowed').map((d) => d.message);
    expect(messages.join('\n')).toMatch(/already declared by tools\/a.rhai/);
    expect(messages.join('\n')).toMatch(/MCP server "files"/);
    expect(r.blueprint?.scriptTools?.map((t) => t.source)).toEqual(['// @tool owner\n"first"']);
  });

  it('a granted script tool is no MCP grant, so it needs no discovery', () => {
    const r = loadToml(GRANT('"owner", "create_issue"'), { 'tools/owner.rhai': '// @tool owner\n1' }, { userConfig });
    if (!r.blueprint) throw new Error(errorsOf(r).join('\n'));
    expect(mcpGrants(r.blueprint, 'a').tools).toEqual(['create_issue']);
  });
});

describe("the original's script tools", () => {
  it("the bundled researchers' web_fetch.rhai and web_search.rhai are shadowed by the built-ins, with a warning each", () => {
    const r = loadBlueprint('test/fixtures/leviath-rs/agents/researcher', {
      workdir: 'test/fixtures/leviath-rs/agents/researcher',
    });
    expect(errorsOf(r)).toEqual([]);
    expect(
      r.diagnostics.filter((d) => d.code === 'script-tool-shadowed').map((d) => d.file?.split('/').at(-1)),
    ).toEqual(['web_fetch.rhai', 'web_search.rhai']);
  });

  it('the triage agent of test/fixtures/original carries its lookup_owner tool', () => {
    const r = loadBlueprint('test/fixtures/original/triage', { workdir: 'test/fixtures/original/triage' });
    expect(r.blueprint?.scriptTools?.map((t) => t.name)).toEqual(['lookup_owner']);
    expect(r.blueprint?.stages.find((s) => s.name === 'read')?.availableTools).toContain('lookup_owner');
  });
});

describe('the global tools folder', () => {
  const UPPER =
    '// @tool upper\n// @description Upper-case text\n// @param text string required "input"\nparams.text.to_upper()';
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-global-tools-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  it('offers its tools to every blueprint that grants them, named by their absolute path', () => {
    const toolsDir = folder({ 'upper.rhai': UPPER, 'notes.txt': 'not a tool' });
    const r = loadToml(GRANT('"upper"'), {}, { toolsDir });
    expect(errorsOf(r)).toEqual([]);
    expect(r.blueprint?.scriptTools?.map((t) => [t.name, t.path])).toEqual([['upper', join(toolsDir, 'upper.rhai')]]);
    expect(codesOf(loadToml(GRANT('"upper"'), {}, { toolsDir: folder({}) }))).toContain('unknown-tool');
  });

  it("is shadowed by the blueprint's own tool of the same name", () => {
    const toolsDir = folder({ 'upper.rhai': UPPER });
    const own = '// @tool upper\n// @param text string required\n"mine"';
    const r = loadToml(GRANT('"upper"'), { 'tools/upper.rhai': own }, { toolsDir });
    expect(codesOf(r)).toEqual([]);
    expect(r.blueprint?.scriptTools?.map((t) => t.path)).toEqual(['tools/upper.rhai']);
  });

  it('reports a broken script there under its own path, with the codes of the blueprint folder', () => {
    const toolsDir = folder({ 'bad.rhai': '// @tool bad\nlet = ;', 'read.rhai': '// @tool read_file\n"x"' });
    const r = loadToml(GRANT('"read_file"'), {}, { toolsDir });
    const byCode = new Map(r.diagnostics.map((d) => [d.code, d]));
    expect(byCode.get('script-tool-syntax')?.file).toBe(join(toolsDir, 'bad.rhai'));
    expect(byCode.get('script-tool-shadowed')?.message).toContain(`${toolsDir}/read.rhai declares the tool`);
  });

  it("stands for the original's web-tool scripts an agent.leviath needs, as ~/.leviath/tools/ does there", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-leviath-'));
    writeFileSync(join(dir, 'agent.leviath'), `[agent]\nname = "x"\n${GRANT('"web_search"')}\n`);
    const load = (toolsDir: string) => codesOf(loadBlueprint(dir, { workdir: dir, toolsDir }));
    expect(load(folder({}))).toContain('unknown-tool');
    const script = readFileSync('test/fixtures/leviath-rs/agents/researcher/tools/web_search.rhai', 'utf8');
    expect(load(folder({ 'web_search.rhai': script }))).not.toContain('unknown-tool');
  });

  it('is read from tools/ of the config folder unless the loader is told another', () => {
    expect(globalToolsDir({ HOME: '/h' })).toBe('/h/.config/leviath/tools');
    expect(globalToolsDir({ HOME: '/h', XDG_CONFIG_HOME: '/x' })).toBe('/x/leviath/tools');
    expect(globalToolsDir({ HOME: '/h', LEVIATH_HOME: '/h/.leviath' })).toBe('/h/.leviath/tools');
  });
});

describe("the workdir's tools/ of a run with dynamic_tools", () => {
  it('reads the scripts by the rules of a blueprint folder, saying what a script got wrong', () => {
    const work = mkdtempSync(join(tmpdir(), 'lev-run-tools-'));
    const outside = mkdtempSync(join(tmpdir(), 'lev-outside-'));
    mkdirSync(join(work, 'tools'));
    writeFileSync(join(work, 'tools/shout.rhai'), '// @tool shout\n// @param text string required\nparams.text');
    writeFileSync(join(work, 'tools/broken.rhai'), '// @tool broken\nlet = ;');
    writeFileSync(join(work, 'tools/nameless.rhai'), '1');
    writeFileSync(join(work, 'tools/read.rhai'), '// @tool read_file\n1');
    writeFileSync(join(outside, 'away.rhai'), '// @tool away\n1');
    symlinkSync(join(outside, 'away.rhai'), join(work, 'tools/away.rhai'));
    const found = readRunTools(work, RUNTIME_TOOLS);
    expect(found.tools.map((t) => [t.name, t.path])).toEqual([['shout', 'tools/shout.rhai']]);
    const problems = found.problems.join('\n');
    expect(problems).toMatch(/tools\/away.rhai lies outside the workdir/);
    expect(problems).toMatch(/`broken` does not compile: .* \(line 2\)/);
    expect(problems).toMatch(/tools\/nameless.rhai declares no usable tool/);
    expect(problems).toMatch(/`read_file`, which is a tool Leviath answers itself/);
  });

  it('finds nothing in a workdir without tools/', () => {
    expect(readRunTools(mkdtempSync(join(tmpdir(), 'lev-run-none-')), RUNTIME_TOOLS)).toEqual({
      tools: [],
      problems: [],
    });
  });
});
