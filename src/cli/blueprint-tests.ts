/**
 * `lev test` (docs/reference/blueprint-tests.md): a blueprint's `tests/`
 * cases. A `tests/*.toml` case is one inference, not a run: a fresh region
 * set for the entry stage with the case's input as the task, rendered as a
 * live run renders its first turn, sent once to the stage's model (the
 * `scripted` provider included), and the reply checked. Tools are asserted
 * on, never performed. A `tests/*.rhai` script passes unless it returns
 * `false` or fails.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { loadUserConfig, scriptProviderSettings } from '../blueprint/user-config.js';
import { enterStage } from '../context/enter-stage.js';
import type { EngineEnv } from '../context/kinds/custom.js';
import { replyLimit } from '../context/maintenance.js';
import { renderPrompt, systemBlockText } from '../context/render.js';
import { type EngineOp, runSync } from '../context/requests.js';
import { seedRegion } from '../context/seed-fit.js';
import { createRunState, type RunState } from '../context/state.js';
import { formatCoded, type RuntimeCode } from '../errors.js';
import { lookupModel, replyCap } from '../providers/builtin-models.js';
import { getProvider, type InferenceRequest, type InferenceResponse } from '../providers/index.js';
import { compile } from '../rhai/index.js';
import { stageToolSpecs } from '../runtime/node/inference.js';
import { chooseModel } from '../runtime/node/model-choice.js';
import { providerRef } from '../runtime/node/model-ref.js';
import { customRegionHooks } from '../runtime/region-hooks.js';
import { grantNote, offersRunTools } from '../runtime/run-tools.js';
import { effectiveSeed } from '../seeds/task.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { tokenMeter } from '../tokens/count.js';
import { makeSyncHandler } from '../tokens/exact-answers.js';
import { modelEncoding } from '../tokens/model.js';

/** One `[[test]]` of a `tests/*.toml` file, with the original Leviath's keys. */
export interface TestCase {
  name: string;
  input: string;
  expect_contains?: string;
  expect_tool_call?: string;
  max_tokens?: number;
}

export interface CaseResult {
  file: string;
  name: string;
  ok: boolean;
  /** Set when the case failed: `test-case-invalid`, `test-case-failed`, or the provider's code. */
  code?: string;
  /** What failed, one sentence each. */
  problems: string[];
  /** The start of the reply and the tools it called, when there was one. */
  reply?: { text: string; toolCalls: string[] };
}

export interface TestReport {
  stage: string;
  model: string;
  dryRun: boolean;
  results: CaseResult[];
  passed: number;
  failed: number;
  total: number;
}

const CASE_KEYS = new Set(['name', 'input', 'expect_contains', 'expect_tool_call', 'max_tokens']);
const REPLY_PREVIEW = 200;

/** A file's cases, or the sentence that says why it cannot be read. */
export function parseTestFile(text: string): { cases: unknown[] } | { error: string } {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    return { error: `it is not valid TOML (${(err as Error).message.split('\n')[0]})` };
  }
  const extra = Object.keys(doc).filter((k) => k !== 'test');
  if (extra.length > 0)
    return { error: `it has ${extra.map((k) => `\`${k}\``).join(', ')}; a test file holds only [[test]] cases` };
  if (!Array.isArray(doc.test) || doc.test.length === 0) return { error: 'it holds no [[test]] case' };
  return { cases: doc.test };
}

/**
 * What is wrong with a case before anything is sent: every key known, `name`
 * and `input` set, at least one expectation, a tool the stage offers.
 */
export function caseProblems(raw: unknown, offered: readonly string[], stage: string): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['a case must be a table'];
  const c = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(c))
    if (!CASE_KEYS.has(key)) problems.push(`\`${key}\` is not a key of a test case (${[...CASE_KEYS].join(', ')})`);
  if (typeof c.name !== 'string' || c.name.trim() === '') problems.push('`name` must be a non-empty string');
  if (typeof c.input !== 'string' || c.input.trim() === '') problems.push('`input` must be a non-empty string');
  for (const key of ['expect_contains', 'expect_tool_call'])
    if (c[key] !== undefined && (typeof c[key] !== 'string' || (c[key] as string) === ''))
      problems.push(`\`${key}\` must be a non-empty string`);
  if (c.expect_contains === undefined && c.expect_tool_call === undefined)
    problems.push('a case needs `expect_contains` or `expect_tool_call`, or it can never fail');
  if (typeof c.expect_tool_call === 'string' && c.expect_tool_call !== '' && !offered.includes(c.expect_tool_call))
    problems.push(
      `\`expect_tool_call = "${c.expect_tool_call}"\` names a tool stage "${stage}" does not offer; add it to its available_tools or expect one of: ${offered.join(', ') || 'none'}`,
    );
  if (c.max_tokens !== undefined && !(Number.isInteger(c.max_tokens) && (c.max_tokens as number) > 0))
    problems.push('`max_tokens` must be a positive whole number');
  return problems;
}

/** The failed expectations of a reply; empty when it passes. */
export function replyProblems(c: TestCase, reply: Pick<InferenceResponse, 'text' | 'toolCalls'>): string[] {
  const problems: string[] = [];
  if (c.expect_contains !== undefined && !reply.text.toLowerCase().includes(c.expect_contains.toLowerCase()))
    problems.push(`the reply does not contain "${c.expect_contains}" (case-insensitive)`);
  if (c.expect_tool_call !== undefined && !reply.toolCalls.some((t) => t.name === c.expect_tool_call)) {
    const called = reply.toolCalls.map((t) => t.name);
    problems.push(
      `the reply calls no \`${c.expect_tool_call}\` (it called ${called.length > 0 ? called.join(', ') : 'no tool'})`,
    );
  }
  return problems;
}

/**
 * The request a live run sends on its first turn of `stage` with `task` as
 * its task: the entry stage entered, the task and literal seeds applied
 * (docs/reference/blueprint-tests.md#what-a-case-sends), the prompt rendered
 * with the region hooks, the stage's tools and reply limit.
 */
export function firstTurnRequest(
  bp: Blueprint,
  stage: string,
  model: string,
  task: string,
  maxTokens: number | undefined,
): InferenceRequest {
  const info = lookupModel(bp.models, model);
  // A first turn folds nothing, so no summary is ever asked for.
  const encoding = modelEncoding(bp.models, model);
  const handler = makeSyncHandler(encoding, () => ({
    ok: false,
    error: 'lev test makes no summaries',
  }));
  const sync = <T>(op: EngineOp<T>): T => runSync(op, handler);
  const count = (text: string) => handler({ type: 'count', text }) as number;
  const counted: Blueprint = {
    ...bp,
    stages: bp.stages.map((s) =>
      s.systemPrompt !== undefined ? { ...s, systemPromptTokens: count(s.systemPrompt) } : s,
    ),
  };
  const hooks = customRegionHooks(counted);
  const env: EngineEnv = { now: 0, ...(hooks ? { hooks } : {}) };
  const state: RunState = createRunState(counted);
  const entered = sync(enterStage(state, counted, stage, env));
  if (!entered.ok) throw new Error(entered.message);
  for (const region of state.regions) {
    const seed = effectiveSeed(region.def);
    const text = seed?.form === 'task_input' ? task : seed?.form === 'literal' ? seed.text : undefined;
    if (text !== undefined)
      sync(seedRegion(state, region.name, [{ content: text, tokens: count(text) }], env, { replaceSeeded: true }));
  }
  // The turn a new run would send: the run's tools where the stage's own differ, with its grants stated.
  const runWide = offersRunTools(counted, stage);
  const note = runWide ? grantNote(counted, stage) : undefined;
  const rendered = renderPrompt(state, counted, env, {
    iteration: 0,
    meter: tokenMeter(encoding),
    ...(note ? { grantNote: note } : {}),
  });
  // The stage's model parameters go with the turn, as with a run's (docs/providers.md#model-parameters).
  const parameters = counted.stages.find((s) => s.name === stage)?.modelParameters;
  const ceiling = replyLimit(state, replyCap(info, parameters?.max_tokens));
  return {
    model: providerRef(counted, model),
    system: rendered.system.map((b) => ({ text: systemBlockText(b), ...(b.cache ? { cache: true } : {}) })),
    messages: rendered.messages,
    tools: stageToolSpecs(counted, stage, undefined, runWide),
    maxTokens: maxTokens === undefined ? ceiling : Math.min(maxTokens, ceiling),
    ...(parameters ? { parameters } : {}),
    meta: { runId: `lev-test-${counted.agent.name}`, stage, turn: 0, purpose: 'turn', attempt: 1, stageTurn: 0 },
  };
}

function failure(file: string, name: string, code: RuntimeCode | string, problems: string[]): CaseResult {
  return { file, name, ok: false, code, problems };
}

function listTests(dir: string): string[] {
  try {
    if (!statSync(dir).isDirectory()) return [];
  } catch {
    return [];
  }
  return readdirSync(dir)
    .filter((f) => f.endsWith('.toml') || f.endsWith('.rhai'))
    .sort();
}

function runScript(file: string, path: string): CaseResult {
  const compiled = compile(readFileSync(path, 'utf8'), file);
  if (!compiled.ok)
    return failure(file, file, 'test-case-failed', [`the script does not compile: ${compiled.error.message}`]);
  const run = compiled.script.run({});
  if (!run.ok) return failure(file, file, 'test-case-failed', [`the script failed: ${run.error.message}`]);
  if (run.value === false) return failure(file, file, 'test-case-failed', ['the script returned false']);
  return { file, name: file, ok: true, problems: [] };
}

export interface TestOptions {
  filter?: string;
  dryRun?: boolean;
  /** The model every case is sent to, instead of the entry stage's. */
  model?: string;
  env?: NodeJS.ProcessEnv;
}

/** Runs (or with `dryRun`, checks) every case under `<blueprint dir>/tests`, in file-name order. */
export async function runBlueprintTests(bp: Blueprint, opts: TestOptions = {}): Promise<TestReport> {
  const env = opts.env ?? process.env;
  const stage = bp.agent.entryStage;
  const model = opts.model ?? chooseModel(bp, stage, [], env);
  const offered = stageToolSpecs(bp, stage, undefined).map((t) => t.name);
  const dir = join(bp.dir, 'tests');
  const results: CaseResult[] = [];
  for (const file of listTests(dir)) {
    const path = join(dir, file);
    if (file.endsWith('.rhai')) {
      if (opts.filter !== undefined && !file.includes(opts.filter)) continue;
      results.push(opts.dryRun ? { file, name: file, ok: true, problems: [] } : runScript(file, path));
      continue;
    }
    const parsed = parseTestFile(readFileSync(path, 'utf8'));
    if ('error' in parsed) {
      results.push(failure(file, file, 'test-case-invalid', [`${file} cannot be read: ${parsed.error}`]));
      continue;
    }
    for (const [i, raw] of parsed.cases.entries()) {
      const named = (raw as { name?: unknown })?.name;
      const name = typeof named === 'string' && named !== '' ? named : `case ${i + 1}`;
      if (opts.filter !== undefined && !name.includes(opts.filter)) continue;
      const problems = caseProblems(raw, offered, stage);
      if (problems.length > 0) {
        results.push(failure(file, name, 'test-case-invalid', problems));
        continue;
      }
      if (opts.dryRun) {
        results.push({ file, name, ok: true, problems: [] });
        continue;
      }
      results.push(await runCase(bp, stage, model, file, raw as TestCase, env));
    }
  }
  const passed = results.filter((r) => r.ok).length;
  return {
    stage,
    model,
    dryRun: opts.dryRun === true,
    results,
    passed,
    failed: results.length - passed,
    total: results.length,
  };
}

async function runCase(
  bp: Blueprint,
  stage: string,
  model: string,
  file: string,
  c: TestCase,
  env: NodeJS.ProcessEnv,
): Promise<CaseResult> {
  const request = firstTurnRequest(bp, stage, model, c.input, c.max_tokens);
  let response: InferenceResponse;
  try {
    // Streamed as a run's turn is (its text read as it comes), so the body sent is the one a run sends.
    response = await getProvider(request.model, env, {
      defs: bp.providerScripts ?? [],
      settings: scriptProviderSettings(loadUserConfig(env).config),
    }).infer(request, { onText: () => {} });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return failure(file, c.name, typeof code === 'string' ? code : 'test-case-failed', [
      `the model call failed: ${(err as Error).message}`,
    ]);
  }
  const reply = {
    text: response.text.length > REPLY_PREVIEW ? `${response.text.slice(0, REPLY_PREVIEW)}…` : response.text,
    toolCalls: response.toolCalls.map((t) => t.name),
  };
  const problems = replyProblems(c, response);
  return problems.length > 0
    ? { ...failure(file, c.name, 'test-case-failed', problems), reply }
    : { file, name: c.name, ok: true, problems: [], reply };
}

/** The report for a terminal, as the original's `lev test` prints it. */
export function formatTestReport(report: TestReport): string {
  const lines: string[] = [];
  if (report.dryRun) lines.push('Dry run: checking the cases only, no model is called.', '');
  lines.push(`stage ${report.stage}, model ${report.model}`);
  let file = '';
  for (const r of report.results) {
    if (r.file !== file) {
      file = r.file;
      lines.push(`Running test file: ${file}`);
    }
    const mark = r.ok ? (report.dryRun ? 'PASS (dry-run)' : 'PASS') : report.dryRun ? 'FAIL (dry-run)' : 'FAIL';
    lines.push(`  ${mark}: ${r.name}`);
    for (const p of r.problems) lines.push(`    ${p}`);
    if (!r.ok && r.reply) lines.push(`    reply: ${JSON.stringify(r.reply.text)}`);
  }
  lines.push('', '--- Results ---', `${report.passed} passed, ${report.failed} failed, ${report.total} total`);
  const failed = report.results.filter((r) => !r.ok);
  if (failed.length > 0) {
    lines.push('', 'Failures:');
    for (const r of failed)
      lines.push(`  - ${formatCoded(r.code as RuntimeCode, `${r.file}: ${r.name}: ${r.problems.join('; ')}`)}`);
  }
  return `${lines.join('\n')}\n`;
}
