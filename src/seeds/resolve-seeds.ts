/**
 * Resolves one region's seed into raw texts (docs/reference/seeds.md#forms, docs/reference/seeds.md#confinement and
 * docs/reference/seeds.md#command-seeds). Only
 * the forms that touch the outside world need an activity, but every form
 * is answered here so the seed activity has a single entry point. Fitting
 * the texts into the region's budget (10.2) is the caller's job.
 */

import type { RuntimeCode } from '../error-codes.js';
import { type Diagnostic, LevError } from '../errors.js';
import { compile } from '../rhai/index.js';
import type { RegionDef, SeedSpec, SeedToolCall } from '../shapes/frozen-blueprint.js';
import { canonicalTool } from '../tools/builtin-names.js';
import { type ConfinedPath, canonicalWorkdir, confinePath } from '../tools/confine.js';
import { dispatchTool } from '../tools/dispatch.js';
import { globFiles } from '../tools/glob-files.js';
import { decodeText, openForRead, readRange } from '../tools/open-once.js';
import { runShell, SHELL_OUTPUT_CAP_BYTES, truncationMarker } from '../tools/run-shell.js';
import { isPreApproved } from '../tools/safe-commands.js';
import { DEFAULT_SANDBOX, prepareCommand } from '../tools/sandbox.js';
import type { ScriptContext } from '../tools/tool.js';
import { requiredInputMessage, taskValue } from './preflight.js';
import type { SeedInputs, SeedResult, SeedText } from './seed-inputs.js';
import { callerKey, effectiveSeed, isBlank } from './task.js';

/** Files larger than this are cut when seeded; no region budget holds more. */
export const SEED_FILE_MAX_BYTES = 16 * 1024 * 1024;

type Form<F extends SeedSpec['form']> = Extract<SeedSpec, { form: F }>;

class Collector {
  readonly texts: SeedText[] = [];
  readonly warnings: Diagnostic[] = [];

  constructor(readonly region: RegionDef) {}

  get where(): string {
    return `context.regions.${this.region.name}.seed`;
  }

  fatal(code: RuntimeCode, message: string): never {
    const text = `Region \`${this.region.name}\`: ${message}`;
    throw new LevError(code, text, [{ code, severity: 'error', message: text, path: this.where }]);
  }

  /** A problem that skips one source: fatal only for a required region. */
  skip(code: RuntimeCode, message: string): void {
    if (this.region.required) this.fatal(code, `${message} The region is required, so the run cannot start.`);
    this.warnings.push({
      code,
      severity: 'warning',
      message: `Region \`${this.region.name}\`: ${message}`,
      path: this.where,
    });
  }

  result(): SeedResult {
    return { region: this.region.name, texts: this.texts, warnings: this.warnings };
  }
}

function confineOptions(inputs: SeedInputs) {
  return { workdir: inputs.workdir, readPolicy: inputs.readPolicy, ...(inputs.home ? { home: inputs.home } : {}) };
}

async function readSeedFile(c: Collector, file: ConfinedPath, inputs: SeedInputs): Promise<void> {
  // Opened once and checked, like a read_file: a link swapped after the spawn-time check cannot redirect it.
  const opened = await openForRead(file.real, confineOptions(inputs), 'file');
  if (!opened.ok) {
    const why = 'missing' in opened && opened.missing ? 'does not exist' : `cannot be read (${opened.message})`;
    c.skip('seed-file-unreadable', `\`${file.display}\` ${why}; fix the path in the seed or create the file.`);
    return;
  }
  let bytes: Buffer;
  try {
    if (opened.info.isDirectory()) {
      c.skip('seed-file-unreadable', `\`${file.display}\` is a directory, not a file; use \`glob\` to seed its files.`);
      return;
    }
    bytes = await readRange(opened.handle, 0, Math.min(opened.info.size, SEED_FILE_MAX_BYTES));
  } finally {
    await opened.handle.close();
  }
  const { text, invalid } = decodeText(bytes);
  c.texts.push({ key: file.display, text });
  if (invalid) {
    c.warnings.push({
      code: 'seed-file-not-utf8',
      severity: 'warning',
      message: `Region \`${c.region.name}\`: \`${file.display}\` is not valid UTF-8; bytes that are not were replaced by U+FFFD.`,
      path: c.where,
    });
  }
  if (opened.info.size > SEED_FILE_MAX_BYTES) {
    c.warnings.push({
      code: 'seed-file-truncated',
      severity: 'warning',
      message: `Region \`${c.region.name}\`: \`${file.display}\` is ${opened.info.size} bytes; only its first ${SEED_FILE_MAX_BYTES} were read.`,
      path: c.where,
    });
  }
}

async function seedFiles(c: Collector, seed: Form<'files'>, inputs: SeedInputs): Promise<void> {
  const confined: ConfinedPath[] = [];
  // Every path is checked before the first one is read.
  for (const p of seed.paths) {
    const result = await confinePath(p, 'read', confineOptions(inputs));
    if (!result.ok) c.fatal('seed-path-refused', `cannot be seeded from \`${p}\`: ${result.message}`);
    confined.push(result.path);
  }
  for (const file of confined) await readSeedFile(c, file, inputs);
}

async function seedGlob(c: Collector, seed: Form<'glob'>, inputs: SeedInputs): Promise<void> {
  const result = await globFiles(seed.pattern, confineOptions(inputs));
  if (!result.ok) c.fatal('seed-path-refused', `cannot be seeded from the glob \`${seed.pattern}\`: ${result.message}`);
  if (result.refused.length > 0) {
    c.fatal(
      'seed-path-refused',
      `the glob \`${seed.pattern}\` matches ${result.refused.map((r) => `\`${r}\``).join(', ')}, which resolve outside the working directory ${inputs.workdir}; remove the links, narrow the pattern, or grant the targets with \`[read_paths]\`.`,
    );
  }
  const files = result.matches.filter((m) => !m.isDirectory);
  if (files.length === 0) {
    c.skip('seed-glob-empty', `the glob \`${seed.pattern}\` matches no files in ${inputs.workdir}.`);
    return;
  }
  for (const file of files) await readSeedFile(c, file, inputs);
}

function scriptValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

async function seedRhai(c: Collector, seed: Form<'rhai'>, inputs: SeedInputs): Promise<void> {
  const confined = await confinePath(seed.path, 'read', confineOptions(inputs));
  if (!confined.ok) c.fatal('seed-path-refused', `cannot run the script \`${seed.path}\`: ${confined.message}`);
  const opened = await openForRead(confined.path.real, confineOptions(inputs), 'file');
  if (!opened.ok || opened.info.isDirectory()) {
    if (opened.ok) await opened.handle.close();
    const why = opened.ok ? 'is a directory' : opened.message;
    c.fatal('seed-rhai-failed', `the script \`${seed.path}\` cannot be read (${why}); check the path in the seed.`);
  }
  let source: string;
  try {
    source = decodeText(await opened.handle.readFile()).text;
  } finally {
    await opened.handle.close();
  }
  const compiled = compile(source, seed.path);
  if (!compiled.ok) c.fatal('seed-rhai-failed', `the script does not compile: ${compiled.error.message}.`);
  const run = compiled.script.run({ task: taskValue(inputs) ?? '', workdir: await canonicalWorkdir(inputs.workdir) });
  if (!run.ok) c.fatal('seed-rhai-failed', `the script failed: ${run.error.message}.`);
  const text = scriptValue(run.value);
  if (text === undefined)
    c.fatal(
      'seed-rhai-failed',
      `the script \`${seed.path}\` must return a string, but returned ${Array.isArray(run.value) ? 'an array' : 'a map'}.`,
    );
  if (isBlank(text)) {
    c.skip('seed-empty', `the script \`${seed.path}\` returned nothing.`);
    return;
  }
  c.texts.push({ key: seed.path, text });
}

/** A script tool seed's `shell` answers to the switches of command seeds too. */
function scriptsWhileSeeding(scripts: ScriptContext, inputs: SeedInputs): ScriptContext {
  const disabled = commandsDisabled(inputs);
  return disabled ? { ...scripts, noCommands: disabled } : scripts;
}

/** Why commands may not run while seeding, or undefined when they may. */
function commandsDisabled(inputs: SeedInputs): string | undefined {
  if (inputs.noSeedCommands) return '--no-seed-commands was given';
  if (!inputs.allowSeedCommands) return '`[security] allow_seed_commands = false`';
  return undefined;
}

async function seedCommand(c: Collector, seed: Form<'command'>, inputs: SeedInputs): Promise<void> {
  const disabled = commandsDisabled(inputs);
  if (disabled) {
    c.skip('seed-command-disabled', `the command seed \`${seed.command}\` was not run because ${disabled}.`);
    return;
  }
  const approval = [inputs.safeCommands, ...(inputs.ceilings ?? []).map((c) => c.safeCommands)]
    .map((list) => isPreApproved(seed.command, list))
    .find((a) => !a.ok) ?? { ok: true as const };
  if (!approval.ok) {
    c.skip(
      'seed-command-not-approved',
      `the command seed \`${seed.command}\` is not pre-approved (not covered: ${approval.uncovered.join('; ')}); add the program to \`[safe_commands] shell\`, or use a read-only command from the safe list.`,
    );
    return;
  }
  let cwd: string;
  try {
    cwd = await canonicalWorkdir(inputs.workdir);
  } catch {
    c.fatal('workdir-missing', `the working directory ${inputs.workdir} does not exist; create it first.`);
  }
  const prepared = prepareCommand(seed.command, cwd, inputs.sandbox ?? DEFAULT_SANDBOX);
  if (!prepared.ok) c.fatal(prepared.code, prepared.message);
  const run = await runShell(prepared.run, {
    cwd,
    timeoutSecs: inputs.shellTimeoutSecs,
    capBytes: SHELL_OUTPUT_CAP_BYTES,
  });
  if (run.spawnError !== undefined) c.fatal('seed-command-failed', `bash could not be started (${run.spawnError}).`);
  if (run.timedOut) {
    c.fatal(
      'seed-command-failed',
      `the command seed \`${seed.command}\` did not finish within ${inputs.shellTimeoutSecs} s; make it faster or raise \`[limits] script_shell_timeout_secs\`.`,
    );
  }
  if (run.exitCode !== 0) {
    const tail = run.output.trim().slice(-500);
    c.fatal(
      'seed-command-failed',
      `the command seed \`${seed.command}\` exited with code ${run.exitCode ?? 'unknown'}${tail ? `: ${tail}` : ''}.`,
    );
  }
  if (run.output.trim() === '') {
    c.skip('seed-command-empty', `the command seed \`${seed.command}\` printed nothing.`);
    return;
  }
  c.texts.push({ key: seed.command, text: run.output + truncationMarker(run) });
}

async function seedTools(c: Collector, calls: SeedToolCall[], inputs: SeedInputs): Promise<void> {
  const seen = new Map<string, number>();
  for (const call of calls) {
    const name = canonicalTool(call.name);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    const key = n === 1 ? name : `${name}#${n}`;
    // A `shell` tool seed runs a command, so the switches that disable command seeds disable it too.
    const disabled = name === 'shell' ? commandsDisabled(inputs) : undefined;
    if (disabled) {
      c.skip('seed-command-disabled', `the tool seed \`${key}\` runs a command and was not run because ${disabled}.`);
      continue;
    }
    const outcome = await dispatchTool(name, call.args, {
      workdir: inputs.workdir,
      readPolicy: inputs.readPolicy,
      permissions: inputs.permissions,
      safeCommands: inputs.safeCommands,
      // Nobody answers `ask` while seeding, so it counts as refused.
      unattended: true,
      attempt: inputs.attempt ?? 1,
      shellTimeoutSecs: inputs.shellTimeoutSecs,
      ...(inputs.home ? { home: inputs.home } : {}),
      ...(inputs.sandbox ? { sandbox: inputs.sandbox } : {}),
      ...(inputs.ceilings ? { ceilings: inputs.ceilings } : {}),
      ...(inputs.run ? { run: inputs.run } : {}),
      ...(inputs.scripts ? { scripts: scriptsWhileSeeding(inputs.scripts, inputs) } : {}),
    });
    if (outcome.isError) {
      c.skip('seed-tool-failed', `the tool seed \`${key}\` failed: ${outcome.content}`);
      continue;
    }
    c.texts.push({ key, text: outcome.content.trimEnd() });
  }
}

function seedCaller(c: Collector, value: string | undefined, key: string): void {
  if (isBlank(value)) {
    if (c.region.required) c.fatal('required-input-missing', requiredInputMessage(c.region, key));
    return;
  }
  c.texts.push({ text: value as string });
}

/** Throws LevError with a stable code when the seed is fatal. */
export async function resolveSeed(region: RegionDef, inputs: SeedInputs): Promise<SeedResult> {
  const c = new Collector(region);
  const seed = effectiveSeed(region);
  if (!seed) return c.result();
  switch (seed.form) {
    case 'task_input':
    case 'input':
    case 'caller': {
      const key = callerKey(region) as string;
      seedCaller(c, key === 'task' ? taskValue(inputs) : inputs.caller[key], key);
      break;
    }
    case 'literal':
      c.texts.push({ text: seed.text });
      break;
    case 'files':
      await seedFiles(c, seed, inputs);
      break;
    case 'glob':
      await seedGlob(c, seed, inputs);
      break;
    case 'rhai':
      await seedRhai(c, seed, inputs);
      break;
    case 'command':
      await seedCommand(c, seed, inputs);
      break;
    case 'tools':
      await seedTools(c, seed.calls, inputs);
      break;
  }
  return c.result();
}
