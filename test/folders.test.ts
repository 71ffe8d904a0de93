/**
 * Which folders and files may import which (docs/architecture.md): the
 * imports between folders, `import type` included, form no cycle, so each
 * folder can be read, tested and changed knowing only the ones below it; no
 * two files import each other round a circle either, except inside the Rhai
 * interpreter. A folder is `src/<name>`, plus `src/runtime/node` (the
 * runtime's Node-only half), `workflows` and `activities`. The shared shapes
 * (`src/shapes/`) import nothing; the workflows' wiring has one home each:
 * activity proxies in `workflows/activities.ts`, wire names in
 * `src/runtime/messages.ts` (which the workflows and the clients import), and model-facing texts in `src/runtime/`; so do a
 * sub-agent worker's input shapes and the merged report's labels
 * (`src/runtime/agents/`). No two modules share a file name (`index.ts` aside).
 * The tools, region kinds and providers are each listed in one table on the
 * ground floor, and nowhere else (`parallelLists`).
 * Commands load blueprints through one loader (`src/cli/blueprint-loader.ts`).
 * A stage visit's state is written in one module (`workflows/visit/stage-visit.ts`).
 * And no test sleeps longer than 2 s (CONTRIBUTING.md#tests-that-wait).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGION_KINDS } from '../src/shapes/frozen-blueprint.js';
import { PROVIDER_PREFIXES } from '../src/shapes/providers.js';
import { RUNTIME_TOOLS, TOOL_ALIASES } from '../src/shapes/tool-catalogue.js';

const ROOT = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function folderOf(file: string): string {
  const rel = relative(ROOT, file);
  if (rel.startsWith('src/runtime/node/')) return 'src/runtime/node';
  const parts = rel.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts[0] === 'src' ? 'src' : parts[0]!;
}

const SOURCES = () => ['src', 'workflows', 'activities'].flatMap((d) => files(join(ROOT, d)));

/** Every relative import of a source file, as repo paths; `types` keeps `import type` and `export type` too. */
function importsOf(file: string, types: boolean): string[] {
  const text = readFileSync(file, 'utf8');
  // Whole `import ... from '...'` and `export ... from '...'` statements.
  const statement = types
    ? /^(import|export)\b[^;]*?from\s+'(\.[^']+)\.js';/gms
    : /^(import|export)(?!\s+type\b)[^;]*?from\s+'(\.[^']+)\.js';/gms;
  return [...text.matchAll(statement)].map((m) => relative(ROOT, resolve(dirname(file), `${m[2]}.ts`)));
}

/** Folder → folders it imports from (values only, or types too), each with the files that do it. */
function folderGraph(types = false): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of SOURCES()) {
    const from = folderOf(file);
    for (const target of importsOf(file, types)) {
      const to = folderOf(join(ROOT, target));
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), relative(ROOT, file)]);
      graph.set(from, edges);
    }
  }
  return graph;
}

const valueGraph = () => folderGraph(false);

/** File → files it imports, `import type` included. */
function fileGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of SOURCES()) {
    const from = relative(ROOT, file);
    graph.set(from, new Map(importsOf(file, true).map((to) => [to, [from]])));
  }
  return graph;
}

/** The interpreter's core, whose files refer to each other's types (`Interp`, `Value`, `Node`) until it has an `Evaluator` interface. */
const CYCLES_ALLOWED = /^src\/rhai\//;

/** The source files whose text matches `pattern`, outside comments' lines. */
function filesMatching(pattern: RegExp, dirs: string[]): string[] {
  return dirs
    .flatMap((d) => files(join(ROOT, d)))
    .filter((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .some((line) => !/^\s*(\*|\/\/)/.test(line) && pattern.test(line)),
    )
    .map((f) => relative(ROOT, f))
    .sort();
}

function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    if (path.includes(node)) {
      found.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node)?.keys() ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

describe('folder imports', () => {
  const graph = valueGraph();

  it('form no cycle', () => {
    expect(graph.size).toBeGreaterThan(8);
    expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('keep the blueprint loader below the engine and the runtime below the activities', () => {
    expect([...(graph.get('src/blueprint')?.keys() ?? [])]).not.toContain('src/context');
    expect([...(graph.get('src/runtime')?.keys() ?? [])]).not.toContain('activities');
    expect([...(graph.get('src/runtime')?.keys() ?? [])]).not.toContain('src/runtime/node');
  });

  it('keep workflow code away from the Node-only runtime and the worker', () => {
    const reached = [...(graph.get('workflows')?.keys() ?? [])];
    expect(reached).not.toContain('src/runtime/node');
    expect(reached).not.toContain('src/worker');
  });

  it('let workflows take values only from src/runtime (not its Node half), src/context and the error modules', () => {
    const allowed = (target: string) =>
      (target.startsWith('src/runtime/') && !target.startsWith('src/runtime/node/')) ||
      target.startsWith('src/context/') ||
      ['src/errors.ts', 'src/error-codes.ts'].includes(target) ||
      target.startsWith('workflows/');
    const reached = files(join(ROOT, 'workflows')).flatMap((f) =>
      importsOf(f, false)
        .filter((t) => !allowed(t))
        .map((t) => `${relative(ROOT, f)} -> ${t}`),
    );
    expect(reached).toEqual([]);
  });

  it('form no cycle with the shapes they share counted too (no import runs back up)', () => {
    expect(cycles(folderGraph(true)).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('form no circle of files, type imports included, outside the Rhai interpreter', () => {
    const circles = cycles(fileGraph()).filter((c) => !c.every((f) => CYCLES_ALLOWED.test(f)));
    expect(circles.map((c) => c.join(' -> '))).toEqual([]);
  });

  it('leave the shared shapes on the ground floor: src/shapes imports nothing outside itself', () => {
    expect([...(folderGraph(true).get('src/shapes')?.keys() ?? [])]).toEqual([]);
  });

  it('wire the workflows in one place each: activity proxies, wire names, and no model-facing text built there', () => {
    expect(filesMatching(/\bproxy(Local)?Activities\b/, ['workflows'])).toEqual(['workflows/activities.ts']);
    expect(filesMatching(/\bdefine(Signal|Query|Update)\b/, ['src', 'workflows', 'activities'])).toEqual([
      'src/runtime/messages.ts',
    ]);
    // Clients send and ask through those definitions, never by spelling a wire name again.
    const spelled = /\.(query|executeUpdate|startUpdate|signal|signalWithStart)(<[^>]*>)?\(\s*['"`]/;
    expect(filesMatching(spelled, ['src/worker', 'src/cli', 'workflows', 'activities'])).toEqual([]);
    expect(filesMatching(/\bformatCoded\b/, ['workflows'])).toEqual([]);
  });

  it("give sub-agents one home each: a worker's input shapes, and the report's status labels", () => {
    // docs/reference/sub-agents.md#one-input-shape: spawn_agent, fan_out and a shard start workers from one spec.
    const shapes = /^(export )?(interface|type) (WorkerSpec|WorkerShare|WorkerInput|WorkerChild|ShardInput|ShardJob)\b/;
    expect(filesMatching(shapes, ['src', 'workflows', 'activities'])).toEqual([
      'src/runtime/agents/shards.ts',
      'src/runtime/agents/worker-spec.ts',
    ]);
    expect(filesMatching(/\b(FAILED|CANCELLED|NOT STARTED)\b/, ['src/runtime', 'workflows', 'activities'])).toEqual([
      'src/runtime/agents/fan-out-report.ts',
    ]);
  });

  it('load blueprints for commands in one place, against the user config (src/cli/blueprint-loader.ts)', () => {
    // docs/reference/blueprint.md#user-config: every command loads a blueprint with the config `lev validate` reads.
    expect(filesMatching(/\bloadBlueprint(FromString)?\b/, ['src/cli'])).toEqual(['src/cli/blueprint-loader.ts']);
  });

  it('name each module once: no two files share a basename, index.ts aside', () => {
    // A name says one thing: `lev` code, docs and stack traces name a module by its file name alone.
    const byName = new Map<string, string[]>();
    for (const file of SOURCES()) {
      const rel = relative(ROOT, file);
      const name = rel.split('/').at(-1)!;
      if (name !== 'index.ts') byName.set(name, [...(byName.get(name) ?? []), rel]);
    }
    expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });

  it('keep the runtime boundary shapes at the bottom: src/runtime/types.ts imports no sibling but ops.ts', () => {
    const siblings = importsOf(join(ROOT, 'src/runtime/types.ts'), true).filter((f) => f.startsWith('src/runtime/'));
    expect(siblings).toEqual(['src/runtime/ops.ts']);
  });

  it('finds a cycle when there is one', () => {
    const looped = new Map([
      ['a', new Map([['b', ['a.ts']]])],
      ['b', new Map([['a', ['b.ts']]])],
    ]);
    expect(cycles(looped)).toEqual([['a', 'b', 'a']]);
  });
});

/** What the tables on the ground floor name: a list of three or more of one of them elsewhere is a second home. */
const VOCABULARIES: Record<string, ReadonlySet<string>> = {
  tools: new Set([...RUNTIME_TOOLS, ...Object.keys(TOOL_ALIASES)]),
  'region kinds': new Set(REGION_KINDS),
  providers: new Set(PROVIDER_PREFIXES),
};

/** The tables themselves, and lists that share names with a table but list something else. */
const LISTS_ALLOWED: Record<string, string> = {
  'src/shapes/tool-catalogue.ts': 'the tool catalogue',
  'src/shapes/frozen-blueprint.ts': 'REGION_KINDS',
  'src/shapes/region-kinds.ts': 'the region kind facts',
  'src/shapes/providers.ts': 'the provider table',
  // SCRIPT_IO_FUNCTIONS: a script tool's host functions, some named like the tools they resemble.
  'src/tools/builtin-names.ts': 'SCRIPT_IO_FUNCTIONS',
};

/**
 * Array and set literals of plain strings (and spreads) in `text`, outside
 * comments' lines, that name three or more tools, region kinds or providers:
 * a parallel list of a fact the tables on the ground floor hold.
 */
function parallelLists(text: string): { of: string; names: string[] }[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join('\n');
  const element = String.raw`(?:'[^'\n]*'|"[^"\n]*"|\.\.\.[\w.()']+)`;
  const literal = new RegExp(String.raw`\[\s*(${element}(?:\s*,\s*${element})*)\s*,?\s*\]`, 'g');
  return [...code.matchAll(literal)].flatMap((m) => {
    const strings = [...(m[1] as string).matchAll(/'([^']*)'|"([^"]*)"/g)].map((s) => (s[1] ?? s[2]) as string);
    return Object.entries(VOCABULARIES).flatMap(([of, names]) => {
      const named = [...new Set(strings.filter((s) => names.has(s)))];
      return named.length >= 3 ? [{ of, names: named }] : [];
    });
  });
}

describe('facts with one home', () => {
  it('list the tools, region kinds and providers only in their tables on the ground floor', () => {
    const found = SOURCES()
      .filter((f) => LISTS_ALLOWED[relative(ROOT, f)] === undefined)
      .flatMap((f) =>
        parallelLists(readFileSync(f, 'utf8')).map((l) => `${relative(ROOT, f)}: ${l.of} ${l.names.join(', ')}`),
      );
    expect(found).toEqual([]);
  });

  it('finds a parallel list when there is one', () => {
    const code = [
      "const KNOWN_TOOLS = new Set(['read_file', 'shell', ...WEB_TOOLS, 'ask_user_choice']);",
      'const ROLLING = [',
      "  'temporary',",
      "  'clearable',",
      "  'sliding_window',",
      '] as const;',
      "const PREFERRED = ['anthropic', 'openai', 'google'];",
      "const TWO = ['read_file', 'shell'];",
      "const OPS = ['user', 'tool_result', 'enter_stage'];",
      "fn(['pinned', 'custom'], regions['hashmap']);",
      " * ['read_file', 'shell', 'grep'] in a comment",
    ].join('\n');
    expect(parallelLists(code)).toEqual([
      { of: 'tools', names: ['read_file', 'shell', 'ask_user_choice'] },
      { of: 'region kinds', names: ['temporary', 'clearable', 'sliding_window'] },
      { of: 'providers', names: ['anthropic', 'openai', 'google'] },
    ]);
  });
});

/** The module that owns a stage visit's mutable state, and the fields it alone writes. */
const VISIT_STATE_HOME = 'workflows/visit/stage-visit.ts';
const VISIT_STATE_FIELDS = [
  'inferences',
  'visitTurns',
  'runTurns',
  'usage',
  'facts',
  'finalContent',
  'finalTokens',
  'recentCalls',
  'lastInferenceEnd',
  'reach',
  'patience',
];

/** Writes to a visit's state field through `v.` or `visit.`: assignments, compound ones, `++` and `--`. */
function visitStateWrites(text: string): { line: number; text: string }[] {
  const fields = VISIT_STATE_FIELDS.join('|');
  const patterns = [
    new RegExp(`\\bv(?:isit)?\\.(?:${fields})\\s*(?:\\+\\+|--|[-+*/]?=(?![=>]))`),
    new RegExp(`(?:\\+\\+|--)\\s*v(?:isit)?\\.(?:${fields})\\b`),
  ];
  return text
    .split('\n')
    .flatMap((line, i) => (patterns.some((p) => p.test(line)) ? [{ line: i + 1, text: line.trim() }] : []));
}

describe("the visit's state", () => {
  it(`is written only by the transitions of ${VISIT_STATE_HOME}; other files read it`, () => {
    const found = files(join(ROOT, 'workflows'))
      .filter((f) => relative(ROOT, f) !== VISIT_STATE_HOME)
      .flatMap((f) => visitStateWrites(readFileSync(f, 'utf8')).map((w) => `${relative(ROOT, f)}:${w.line} ${w.text}`));
    expect(found).toEqual([]);
  });

  it('finds a write when there is one', () => {
    const code = [
      'visit.inferences++;',
      '  v.facts = { ...v.facts, fanOutDone: true };',
      'visit.usage += 1;',
      '++v.runTurns;',
      'if (v.facts === before) return;',
      'const seen = v.facts.repetition;',
      'this.book.visitTurns = 0;',
      'prev.facts = x;',
      'visit.countInference(reply);',
    ].join('\n');
    expect(visitStateWrites(code).map((w) => w.line)).toEqual([1, 2, 3, 4]);
  });
});

/** The longest a test may wait on the clock in one go (CONTRIBUTING.md#tests-that-wait). */
const LONGEST_SLEEP_MS = 2_000;

/**
 * Waits on the clock written in test code, with their length in ms: a
 * promise around `setTimeout` (a sleep, not a guard that rejects), a
 * `sleep`/`delay` helper, a scripted model's `latency_ms` and a local
 * model server's `delayMs`.
 */
function sleepsIn(text: string): { line: number; ms: number; text: string }[] {
  const patterns = [
    /setTimeout\(\s*(?:r|res|resolve|done|next)\s*,\s*([\d_]+)\s*\)/g,
    // A helper function; `env.sleep(...)` of a time-skipping server moves its clock instead.
    /(?<![.\w])(?:sleep|delay|pause)\(\s*([\d_]+)\s*[,)]/g,
    /\blatency_ms\s*[:=]\s*([\d_]+)/g,
    /\bdelayMs\s*:\s*([\d_]+)/g,
  ];
  return text
    .split('\n')
    .flatMap((line, i) =>
      patterns.flatMap((p) =>
        [...line.matchAll(p)]
          .map((m) => ({ line: i + 1, ms: Number((m[1] as string).replaceAll('_', '')), text: line.trim() }))
          .filter((s) => s.ms > LONGEST_SLEEP_MS),
      ),
    );
}

describe('tests that wait', () => {
  it('sleep 2 s at most: longer waits are gates, time skipping or short settings (CONTRIBUTING.md#tests-that-wait)', () => {
    // This file's own examples below are the exception.
    const found = files(join(ROOT, 'test'))
      .filter((f) => f !== import.meta.filename)
      .flatMap((f) =>
        sleepsIn(readFileSync(f, 'utf8')).map((s) => `${relative(ROOT, f)}:${s.line} (${s.ms} ms) ${s.text}`),
      );
    expect(found).toEqual([]);
  });

  it('finds a sleep when there is one', () => {
    const code = [
      'await new Promise((r) => setTimeout(r, 2500));',
      'await new Promise((r) => setTimeout(r, 100));',
      "const timer = setTimeout(() => reject(new Error('late')), 90_000);",
      'registerScript(name, { latency_ms: 60_000, turns });',
      'return { delayMs: 3500, json };',
      'await ts.env.sleep(240_000);',
    ].join('\n');
    expect(sleepsIn(code).map((s) => [s.line, s.ms])).toEqual([
      [1, 2500],
      [4, 60_000],
      [5, 3500],
    ]);
  });
});
