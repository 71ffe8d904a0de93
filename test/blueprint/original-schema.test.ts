/**
 * The original Rust Leviath's blueprints and schema against `lev validate`
 * here (docs/reference/original-keys.md). The fixtures are copies, under
 * their MIT licence, of the original's schema and bundled agents
 * (test/fixtures/leviath-rs) and of the blueprints of its benchmark repository
 * (test/fixtures/leviath-benchmarks, see test/fixtures/README.md); nothing is fetched.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { codesOf, errorsOf } from './helpers.js';
import { benchmarkBlueprints, blueprintSetting, FILES, schemaKeyPaths, workerAgentsDir } from './original-schema.js';

function loadLeviath(text: string, files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lev-schema-'));
  writeFileSync(join(dir, 'agent.leviath'), text);
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return loadBlueprint(dir, { workdir: dir, agentsDir: AGENTS });
}

const AGENTS = workerAgentsDir();

const STAGE = (body: string, top = '') => `${top}\n[agent]\nname = "x"\n\n[stages.work]\nmax_iterations = 3\n${body}\n`;

describe('every key of the original schema', () => {
  const paths = schemaKeyPaths();

  it('is read: the schema has the keys this test walks', () => {
    expect(paths.length).toBeGreaterThan(200);
    for (const key of ['agent.dynamic_tools', 'repetition_detection.max_repeat_calls', 'stages.*.model.fallbacks'])
      expect(paths).toContain(key);
  });

  it('loads without an error, each one set alone', () => {
    const failures: string[] = [];
    for (const path of paths) {
      const r = loadLeviath(blueprintSetting(path), FILES);
      const errors = errorsOf(r);
      if (errors.length > 0) failures.push(`${path}: ${errors.join('; ')}`);
    }
    expect(failures).toEqual([]);
  });

  it('has a row in docs/reference/original-keys.md', () => {
    const doc = readFileSync('docs/reference/original-keys.md', 'utf8');
    const listed = new Set([...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));
    expect(paths.filter((p) => !listed.has(p))).toEqual([]);
  });
});

describe('keys the original does not have', () => {
  it('are unknown-key, so a typo is caught', () => {
    const cases = [
      STAGE('', '[mime_types]\npdf = "x"'),
      STAGE('', '[taint_tracking]\nenabled = true'),
      STAGE('', '[repetition]\nmax = 3'),
      STAGE('input_accepts = ["pdf"]'),
      STAGE('output_routing = "notes"'),
      STAGE('model = { models = [{ provider = "anthropic", model = "claude-sonnet-5" }], params = {} }'),
      '[agent]\nname = "x"\ntool_rescan = true\n',
      STAGE('', '[repetition_detection]\nmax_repeat_call = 3'),
    ];
    for (const text of cases) expect(codesOf(loadLeviath(text)), text).toContain('unknown-key');
  });

  it("config-file sections say they belong in the user's config", () => {
    for (const section of ['mcp_servers', 'rate_limits', 'nudge']) {
      const r = loadLeviath(STAGE('', `[${section}]\nx = 1`));
      const d = r.diagnostics.find((x) => x.code === 'unknown-key');
      expect(d?.message, section).toMatch(/not in a blueprint|not a top-level \[nudge\]/);
      expect(r.diagnostics.filter((x) => x.code === 'unknown-key')).toHaveLength(1);
    }
  });
});

describe('values of the new keys are still checked', () => {
  it('wrong types are errors with their code', () => {
    expect(codesOf(loadLeviath(STAGE('', '[repetition_detection]\nmax_repeat_calls = 0')))).toContain('bad-size');
    expect(codesOf(loadLeviath(STAGE('', '[repetition_detection]\nenabled = "yes"')))).toContain('bad-value');
    expect(codesOf(loadLeviath('[agent]\nname = "x"\ndynamic_tools = "on"\n'))).toContain('bad-value');
    expect(codesOf(loadLeviath(STAGE('available_connectors = "fs"')))).toContain('bad-value');
    expect(
      codesOf(loadLeviath(STAGE('', '[[transforms]]\nfrom_blueprint = "a"\nmappings = [{ transform = "copy" }]'))),
    ).toContain('bad-value');
    expect(codesOf(loadLeviath(STAGE('', '[security]\ntaint_tracking = 1')))).toContain('bad-value');
  });

  it('mode = "fan_out_merge" is refused, as by the original parser', () => {
    expect(codesOf(loadLeviath(STAGE('mode = "fan_out_merge"')))).toContain('bad-value');
  });
});

describe("the original's model table forms", () => {
  it('{ provider, model } is a one-entry chain, and fallbacks follow it', () => {
    const r = loadLeviath(
      STAGE(
        'model = { provider = "anthropic", model = "claude-sonnet-5", fallbacks = [{ provider = "openai", model = "gpt-5.5" }] }',
      ),
    );
    expect(errorsOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]).toMatchObject({
      model: 'anthropic:claude-sonnet-5',
      models: ['anthropic:claude-sonnet-5', 'openai:gpt-5.5'],
    });
  });

  it('models wins over the shorthand; parameters are checked against the chain models names', () => {
    const r = loadLeviath(
      STAGE(
        'model = { models = [{ provider = "openai", model = "gpt-5.5" }], provider = "anthropic", model = "claude-sonnet-5", parameters = { temperature = 0.1 } }',
      ),
    );
    expect(errorsOf(r)).toEqual([]);
    expect(r.blueprint?.stages[0]).toMatchObject({ model: 'openai:gpt-5.5', modelParameters: { temperature: 0.1 } });
    expect(codesOf(r)).not.toContain('unsupported-feature');
  });

  it('a provider without a model is refused', () => {
    expect(codesOf(loadLeviath(STAGE('model = { provider = "anthropic" }')))).toContain('bad-value');
  });
});

describe("interactive_points, the mode of the original's coder", () => {
  it('is a mode of its own, its points read with their defaults, and no warning', () => {
    const r = loadLeviath(
      STAGE(
        'mode = "interactive_points"\n[[stages.work.interaction_points]]\nname = "ok"\nprompt = "Go on?"\nstyle = "confirm"',
      ),
    );
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unsupported-feature');
    expect(r.blueprint?.stages[0]?.mode).toBe('interactive_points');
    expect(r.blueprint?.stages[0]?.interactionPoints).toEqual([
      {
        name: 'ok',
        prompt: 'Go on?',
        required: true,
        unattended: 'auto_approve',
        style: 'confirm',
        options: [],
        directives: {},
        abortOptions: [],
        editOptions: [],
      },
    ]);
  });

  it("the coder's plan stage keeps its checkpoint and its asking tools, with no unsupported-feature warning", () => {
    const dir = 'test/fixtures/leviath-rs/agents/coder';
    const r = loadBlueprint(dir, { workdir: dir });
    expect(errorsOf(r)).toEqual([]);
    expect(
      r.diagnostics.filter((d) => d.code === 'unsupported-feature' || d.code === 'blocking-tool-not-allowed'),
    ).toEqual([]);
    const plan = r.blueprint?.stages.find((s) => s.name === 'plan');
    expect(plan?.mode).toBe('interactive_points');
    expect(plan?.availableTools).toEqual([
      'read_file',
      'list_dir',
      'ask_user',
      'ask_user_choice',
      'edit_document',
      'context_read',
    ]);
    expect(plan?.interactionPoints?.[0]).toMatchObject({
      name: 'plan_approval',
      style: 'multiple_choice',
      abortOptions: ['Abort - cancel this run'],
      editOptions: ['Add detail - expand a section'],
      documentRegion: 'plan',
    });
    expect(Object.keys(plan?.interactionPoints?.[0]?.directives ?? {})).toEqual(["Revise - I'll describe changes"]);
    const implement = r.blueprint?.stages.find((s) => s.name === 'implement');
    expect(implement?.availableTools).toContain('ask_user_confirm');
  });
});

/** The blueprint directories under `root`: every directory holding an agent.leviath. */
function blueprintDirs(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.name === 'agent.leviath')) found.push(dir);
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(root);
  return found.sort();
}

/**
 * The original's verdicts on its 77 public blueprints
 * (docs/reference/original-keys.md#the-originals-own-blueprints). Its seven
 * bundled agents lint clean (its own bundled.rs test says so). The benchmark
 * repository's copies of data-analyst, deep-researcher and wide-researcher
 * name `web_search` and `web_fetch`, which the original has only as scripts
 * of the bundled agents' tools/ folder, absent from those copies, so it
 * refuses them with `unknown-tool` and nothing else; its other 67 blueprints
 * are valid. An `agent.leviath` is held to that here too.
 */
const REFUSED: Record<string, string[]> = {
  'bench/agents/data-analyst': ['web_fetch', 'web_search'],
  'bench/agents/deep-researcher': ['web_fetch', 'web_search'],
  'bench/agents/wide-researcher': ['web_fetch', 'web_search'],
};

describe("the original's bundled agents", () => {
  const dirs = blueprintDirs('test/fixtures/leviath-rs/agents');
  it('are the seven it ships', () => {
    expect(dirs.map((d) => d.split('/').at(-1))).toEqual([
      'coder',
      'data-analyst',
      'deep-researcher',
      'log-analyzer',
      'researcher',
      'reviewer',
      'wide-researcher',
    ]);
  });
  for (const dir of dirs) {
    it(`${dir.split('/').at(-1)} validates, as in the original`, () => {
      const r = loadBlueprint(dir, { workdir: dir });
      expect(errorsOf(r)).toEqual([]);
    });
  }
});

describe("the benchmark repository's blueprints", () => {
  const root = benchmarkBlueprints();
  const dirs = blueprintDirs(root);
  const name = (dir: string) => dir.slice(root.length + 1);

  it('are its 70, so with the seven bundled agents the 77 public blueprints of the original', () => {
    expect(dirs).toHaveLength(70);
    for (const refused of Object.keys(REFUSED)) expect(dirs.map(name)).toContain(refused);
  });

  for (const dir of dirs) {
    const refused = REFUSED[name(dir)];
    if (refused)
      it(`${name(dir)} is refused with unknown-tool alone, naming the scripts it lacks, as in the original`, () => {
        const r = loadBlueprint(dir, { workdir: dir });
        const errors = r.diagnostics.filter((d) => d.severity === 'error');
        expect(new Set(errors.map((d) => d.code))).toEqual(new Set(['unknown-tool']));
        const named = new Set(errors.map((d) => /lists `(\w+)`/.exec(d.message)?.[1]));
        expect([...named].sort()).toEqual(refused);
        expect(errors[0]?.message).toMatch(/tools\/web_\w+\.rhai/);
      });
    else
      it(`${name(dir)} validates, as in the original`, () => {
        const r = loadBlueprint(dir, { workdir: dir });
        expect(errorsOf(r)).toEqual([]);
      });
  }

  it("with the bundled agents' web scripts beside them, those three validate and the built-ins answer", () => {
    for (const refused of Object.keys(REFUSED)) {
      const dir = join(root, refused);
      cpSync('test/fixtures/leviath-rs/agents/researcher/tools', join(dir, 'tools'), { recursive: true });
      const r = loadBlueprint(dir, { workdir: dir });
      expect(errorsOf(r)).toEqual([]);
      expect(r.diagnostics.filter((d) => d.code === 'script-tool-shadowed')).toHaveLength(2);
      expect(r.blueprint?.scriptTools).toBeUndefined();
    }
  });

  it('an agent.toml names web_search and web_fetch without scripts: they are built in here', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-web-'));
    const toml =
      '[agent]\nname = "x"\n[stages.work]\nmax_iterations = 3\navailable_tools = ["web_search", "web_fetch"]\n';
    writeFileSync(join(dir, 'agent.toml'), toml);
    expect(errorsOf(loadBlueprint(dir, { workdir: dir }))).toEqual([]);
    const leviath = mkdtempSync(join(tmpdir(), 'lev-web-'));
    writeFileSync(join(leviath, 'agent.leviath'), toml);
    expect(codesOf(loadBlueprint(leviath, { workdir: leviath }))).toContain('unknown-tool');
  });
});
