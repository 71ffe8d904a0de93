/**
 * `lev test` (docs/reference/blueprint-tests.md): the original Leviath's
 * `tests/*.toml` cases and `tests/*.rhai` scripts, run against the shipped
 * `scripted` provider, through the `lev` command (run in process).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';
import { caseProblems, firstTurnRequest, parseTestFile, replyProblems } from '../../src/cli/blueprint-tests.js';
import { lev as levInProcess } from './lev-in-process.js';

const AGENT = `
[agent]
name = "greeter"
model = "scripted:script.toml"
entry_stage = "greet"

[context.regions]
task               = { kind = "pinned", max_tokens = 500 }
stage_instructions = { kind = "pinned", max_tokens = 500 }

[stages.greet]
system_prompt = "Greet the user, then read their notes."
available_tools = ["read_file", "context_append"]
`;

// The first turn of stage greet: what every case's one inference gets back.
const SCRIPT = `
[[turns]]
stage = "greet"
text = "Hello there! Let me look at your notes."
[[turns.tool_calls]]
name = "read_file"
arguments = { path = "notes.md" }
`;

const CASES = `
[[test]]
name = "says hello"
input = "Say hello"
expect_contains = "HELLO"

[[test]]
name = "reads the notes"
input = "What is in notes.md?"
expect_tool_call = "read_file"
max_tokens = 200

[[test]]
name = "says goodbye"
input = "Say goodbye"
expect_contains = "goodbye"

[[test]]
name = "appends a note"
input = "Remember this"
expect_tool_call = "context_append"
`;

function blueprintDir(tests: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lev-test-'));
  writeFileSync(join(dir, 'agent.toml'), AGENT);
  writeFileSync(join(dir, 'script.toml'), SCRIPT);
  if (Object.keys(tests).length > 0) mkdirSync(join(dir, 'tests'));
  for (const [name, text] of Object.entries(tests)) writeFileSync(join(dir, 'tests', name), text);
  return dir;
}

async function lev(...args: string[]) {
  const r = await levInProcess(['test', ...args], { env: { LEVIATH_CONFIG: join(tmpdir(), 'lev-no-config.toml') } });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('lev test', () => {
  it('runs each case as one first-turn inference, checks it, and exits 1 when one fails', async () => {
    const dir = blueprintDir({
      'basic.toml': CASES,
      'ok.rhai': 'let n = 40 + 2; n == 42',
      'broken.rhai': 'false',
    });
    const r = await lev(dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain('stage greet, model scripted:script.toml');
    expect(r.out).toMatch(
      /Running test file: basic\.toml\n {2}PASS: says hello\n {2}PASS: reads the notes\n {2}FAIL: says goodbye/,
    );
    expect(r.out).toContain('the reply does not contain "goodbye" (case-insensitive)');
    expect(r.out).toContain('FAIL: appends a note');
    expect(r.out).toContain('the reply calls no `context_append` (it called read_file)');
    expect(r.out).toContain('PASS: ok.rhai');
    expect(r.out).toContain('FAIL: broken.rhai');
    expect(r.out).toContain('3 passed, 3 failed, 6 total');
    expect(r.out).toContain('[test-case-failed] basic.toml: says goodbye:');
    expect(r.out).toContain('[test-case-failed] broken.rhai: broken.rhai: the script returned false');
  });

  it('prints the report as JSON, and --filter runs only the cases whose name matches', async () => {
    const dir = blueprintDir({ 'basic.toml': CASES });
    const r = await lev(dir, '--filter', 'hello', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ stage: 'greet', model: 'scripted:script.toml', passed: 1, failed: 0, total: 1 });
    expect(report.results[0]).toMatchObject({
      file: 'basic.toml',
      name: 'says hello',
      ok: true,
      reply: { text: 'Hello there! Let me look at your notes.', toolCalls: ['read_file'] },
    });
  });

  it('--dry-run checks the cases without calling a model', async () => {
    // A broken script: a call to the model would fail with scripted-script-invalid.
    const dir = blueprintDir({ 'basic.toml': CASES });
    writeFileSync(join(dir, 'script.toml'), 'not = [valid');
    const r = await lev(dir, '--dry-run');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Dry run: checking the cases only, no model is called.');
    expect(r.out).toContain('PASS (dry-run): says goodbye');
    expect(r.out).toContain('4 passed, 0 failed, 4 total');
  });

  it('reports a case that cannot run with test-case-invalid, and goes on with the others', async () => {
    const dir = blueprintDir({
      'a.toml':
        '[[test]]\nname = "no expectation"\ninput = "hi"\n\n[[test]]\nname = "fine"\ninput = "hi"\nexpect_contains = "hello"\n',
      'b.toml': 'this is not toml',
      'c.toml':
        '[[test]]\nname = "unknown tool"\ninput = "hi"\nexpect_tool_call = "write_file"\nexpect_contain = "x"\n',
    });
    const r = await lev(dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain('PASS: fine');
    expect(r.out).toContain(
      '[test-case-invalid] a.toml: no expectation: a case needs `expect_contains` or `expect_tool_call`',
    );
    expect(r.out).toContain('[test-case-invalid] b.toml: b.toml: b.toml cannot be read: it is not valid TOML');
    expect(r.out).toContain('`expect_contain` is not a key of a test case');
    expect(r.out).toContain('names a tool stage "greet" does not offer');
    expect(r.out).toContain('1 passed, 3 failed, 4 total');
  });

  it('says how to write a case when the blueprint has no tests/ directory', async () => {
    const r = await lev(blueprintDir({}));
    expect(r.code).toBe(0);
    expect(r.out).toContain('No tests/ directory here');
    expect(r.out).toContain('expect_contains = "hello"');
  });

  it('refuses a blueprint that does not validate, with exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-test-bad-'));
    writeFileSync(join(dir, 'agent.toml'), '[agent]\nname = "x"\nentry_stage = "missing"\n');
    const r = await lev(dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('[blueprint-invalid]');
  });
});

describe('the rules of a case', () => {
  it('reads [[test]] cases and refuses anything else in the file', () => {
    expect(parseTestFile('[[test]]\nname = "a"\ninput = "b"\n')).toEqual({ cases: [{ name: 'a', input: 'b' }] });
    expect(parseTestFile('title = "x"\n[[test]]\nname = "a"\n')).toEqual({
      error: 'it has `title`; a test file holds only [[test]] cases',
    });
    expect(parseTestFile('')).toEqual({ error: 'it holds no [[test]] case' });
  });

  it('needs a name, an input, one expectation and a positive max_tokens', () => {
    expect(caseProblems({ name: 'a', input: 'b', expect_contains: 'c' }, [], 's')).toEqual([]);
    expect(caseProblems({ name: '', input: 'b', expect_contains: 'c', max_tokens: 0 }, [], 's')).toEqual([
      '`name` must be a non-empty string',
      '`max_tokens` must be a positive whole number',
    ]);
  });

  it('matches text case-insensitively and tools by exact name', () => {
    const reply = { text: 'All GOOD here', toolCalls: [{ id: '1', name: 'grep', arguments: {} }] };
    expect(replyProblems({ name: 'a', input: 'b', expect_contains: 'good', expect_tool_call: 'grep' }, reply)).toEqual(
      [],
    );
    expect(replyProblems({ name: 'a', input: 'b', expect_tool_call: 'Grep' }, reply)).toEqual([
      'the reply calls no `Grep` (it called grep)',
    ]);
  });
});

describe('the first turn of a case', () => {
  it("carries the stage's model parameters, its max_tokens lowering the reply limit, as a run's turn does", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-test-params-'));
    writeFileSync(
      join(dir, 'agent.toml'),
      '[agent]\nname = "p"\n[stages.main]\nmax_iterations = 3\nmodel = { provider = "openai", model = "gpt-5.5", parameters = { temperature = 0.1, max_tokens = 321 } }\n',
    );
    const bp = loadBlueprint(dir, { workdir: dir }).blueprint!;
    const req = firstTurnRequest(bp, 'main', 'openai:gpt-5.5', 'Say hi.', undefined);
    expect(req.parameters).toEqual({ temperature: 0.1, max_tokens: 321 });
    expect(req.maxTokens).toBe(321);
    expect(firstTurnRequest(bp, 'main', 'openai:gpt-5.5', 'Say hi.', 100).maxTokens).toBe(100);
  });
});
