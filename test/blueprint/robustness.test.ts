/**
 * Any input yields coded diagnostics, never an exception: random text,
 * mutated example blueprints, wrong types in every position, huge and
 * deeply nested files. The property tests run 1,500 generated cases.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse, stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { CODES } from '../../src/blueprint/codes.js';
import { type LoadResult, loadBlueprintFromString } from '../../src/blueprint/load.js';

const EXAMPLES = ['blueprints/coder/agent.toml', 'blueprints/researcher/agent.toml'].map((p) =>
  readFileSync(p, 'utf8'),
);
const RUNS = 300;
/** For a check that only computes, seconds of CPU on a quiet two-core machine: room for one busy with other work. */
const COMPUTE_ONLY_MS = 60_000;

function validate(text: string): LoadResult {
  return loadBlueprintFromString(text, 'blueprints/coder', 'blueprints/coder/agent.toml');
}

function assertWellFormed(result: LoadResult): void {
  for (const d of result.diagnostics) {
    expect(Object.keys(CODES)).toContain(d.code);
    expect(['error', 'warning', 'note']).toContain(d.severity);
    expect(d.message.length).toBeGreaterThan(0);
    if (d.line !== undefined) expect(d.line).toBeGreaterThanOrEqual(1);
  }
  const hasError = result.diagnostics.some((d) => d.severity === 'error');
  expect(result.blueprint === undefined).toBe(hasError);
  if (result.blueprint) expect(JSON.parse(JSON.stringify(result.blueprint))).toEqual(result.blueprint);
}

const scalar = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer({ min: -5, max: 300000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constantFrom(
    'pinned',
    'compacting',
    'sliding_window',
    '20%',
    '0%',
    'each_stage',
    'custom',
    'conversation',
    'todos',
    'task_input',
  ),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }),
);

type Tree = Record<string, unknown>;

/** Every [path to a key] in the document, tables included. */
function keyPaths(tree: unknown, prefix: string[] = []): string[][] {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) return [];
  return Object.entries(tree as Tree).flatMap(([k, v]) => [[...prefix, k], ...keyPaths(v, [...prefix, k])]);
}

function mutate(
  doc: Tree,
  path: string[],
  action: 'replace' | 'delete' | 'add',
  replacement: unknown,
  newKey: string,
): Tree {
  const copy = structuredClone(doc);
  let node: Tree = copy;
  for (const segment of path.slice(0, -1)) node = node[segment] as Tree;
  const last = path[path.length - 1] ?? '';
  if (action === 'replace') node[last] = replacement;
  else if (action === 'delete') delete node[last];
  else node[newKey] = replacement;
  return copy;
}

describe('validation never throws', () => {
  it('on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        assertWellFormed(validate(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('on example blueprints with characters deleted, inserted or lines shuffled', () => {
    fc.assert(
      fc.property(
        fc.nat(EXAMPLES.length - 1),
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 6 }),
        fc.constantFrom('delete', 'insert', 'swap-lines'),
        (which, a, b, insert, how) => {
          const text = EXAMPLES[which] ?? '';
          let mutated: string;
          if (how === 'swap-lines') {
            const lines = text.split('\n');
            const i = a % lines.length;
            const j = b % lines.length;
            [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
            mutated = lines.join('\n');
          } else {
            const at = a % text.length;
            mutated =
              how === 'delete'
                ? text.slice(0, at) + text.slice(at + 1 + (b % 8))
                : text.slice(0, at) + insert + text.slice(at);
          }
          assertWellFormed(validate(mutated));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(
    'on example blueprints with a value replaced by one of the wrong type, deleted, or a key added',
    () => {
      const docs = EXAMPLES.map((t) => parse(t) as Tree);
      fc.assert(
        fc.property(
          fc.nat(docs.length - 1),
          fc.nat(),
          fc.constantFrom('replace', 'delete', 'add') as fc.Arbitrary<'replace' | 'delete' | 'add'>,
          value,
          fc.string({ minLength: 1, maxLength: 10 }),
          (which, pick, action, replacement, newKey) => {
            const doc = docs[which] ?? {};
            const paths = keyPaths(doc);
            const path = paths[pick % paths.length] ?? [];
            let text: string;
            try {
              text = stringify(mutate(doc, path, action, replacement, newKey));
            } catch {
              return;
            }
            assertWellFormed(validate(text));
          },
        ),
        { numRuns: RUNS * 2 },
      );
    },
    COMPUTE_ONLY_MS,
  );

  it('on random documents built from blueprint-like keys', () => {
    const key = fc.constantFrom(
      'agent',
      'context',
      'regions',
      'stages',
      'kind',
      'budget',
      'seed',
      'transitions',
      'gate',
      'tool_routing',
      'overrides',
      'models',
      'x y',
      'é',
      '',
    );
    const doc = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, value, fc.dictionary(key, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, doc, { maxKeys: 5 }), (tree) => {
        let text: string;
        try {
          text = stringify(tree);
        } catch {
          return;
        }
        assertWellFormed(validate(text));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('odd inputs', () => {
  it('an empty or blank file is a valid default blueprint', () => {
    for (const text of ['', '\n\n  \t\n', '# only a comment\n', '\uFEFF']) assertWellFormed(validate(text));
    expect(validate('').blueprint).toBeDefined();
  });

  it('binary junk is a syntax error', () => {
    const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString('latin1');
    const r = validate(junk);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['toml-syntax']);
  });

  it('a 10 MB file is checked like any other, and refused as more than a run can carry', () => {
    const big = `[context.regions]\nnotes = { description = "${'x'.repeat(10 * 1024 * 1024)}" }\n`;
    const r = validate(big);
    assertWellFormed(r);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['blueprint-too-large']);
  });

  it(
    'a file of 200000 regions (over 5 MB) is checked like any other',
    () => {
      const manyRegions = `[context.regions]\n${Array.from({ length: 200000 }, (_, i) => `r${i} = { max_tokens = 10 }`).join('\n')}\n`;
      expect(manyRegions.length).toBeGreaterThan(5_000_000);
      assertWellFormed(validate(manyRegions));
    },
    COMPUTE_ONLY_MS,
  );

  it('deeply nested tables and arrays come back as findings', () => {
    const deepHeader = `[${Array.from({ length: 5000 }, () => 'a').join('.')}]\nx = 1\n`;
    assertWellFormed(validate(deepHeader));
    const deepArray = `x = ${'['.repeat(50000)}${']'.repeat(50000)}\n`;
    expect(validate(deepArray).diagnostics.map((d) => d.code)).toEqual(['toml-syntax']);
    const deepRegion = `[context.regions.r]\nkind = "custom"\nscript = ${'['.repeat(500)}${']'.repeat(500)}\n`;
    assertWellFormed(validate(deepRegion));
  });

  it('wrong types in every position are reported, not thrown', () => {
    for (const wrong of ['1', 'true', '"x"', '[1, 2]', '{ a = 1 }', '1979-05-27', '3.5', 'inf', 'nan']) {
      const text = `agent = ${wrong}\ncontext = ${wrong}\nstages = ${wrong}\nmodels = ${wrong}\nread_paths = ${wrong}\ntool_permissions = ${wrong}\nsafe_commands = ${wrong}\nsecurity = ${wrong}\nlimits = ${wrong}\ncompaction = ${wrong}\n`;
      assertWellFormed(validate(text));
      const regions = `[context.regions.r]\n${['kind', 'budget', 'max_tokens', 'min_tokens', 'admission', 'volatility', 'summarizable', 'required', 'seed', 'description'].map((k) => `${k} = ${wrong}`).join('\n')}\n[stages.s]\n${['model', 'system_prompt', 'available_tools', 'max_iterations', 'context', 'tool_routing', 'transitions'].map((k) => `${k} = ${wrong}`).join('\n')}\n`;
      assertWellFormed(validate(regions));
    }
  });

  it('unicode names are kept and reported exactly', () => {
    const r = validate(
      '[context.regions]\n"заметки" = { kind = "pinned", max_tokens = 100 }\n"🧠" = {}\n[stages."étape"]\nsystem_prompt = "Travaille."',
    );
    assertWellFormed(r);
    expect(r.blueprint?.regions.map((x) => x.name).slice(0, 2)).toEqual(['заметки', '🧠']);
    expect(r.blueprint?.stages[0]?.name).toBe('étape');
    const bad = validate('[context.regions]\n"名前" = { kind = "ピン" }');
    expect(bad.diagnostics[0]).toMatchObject({ code: 'unknown-kind', path: 'context.regions."名前".kind', line: 2 });
  });
});
