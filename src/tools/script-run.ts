/**
 * Running one call of a script tool (docs/reference/script-tools.md#how-a-call-runs).
 * The interpreter is synchronous and its host functions are not: a call of
 * `read_file`, `shell` or `http_get` halts the script, the worker performs
 * it, and the script runs again from the start with the answers so far
 * handed back in order. The interpreter has no clock and no randomness, so
 * each run repeats the last one up to the new answer, and nothing the
 * script asked for is done twice. Every run is bounded by the interpreter's
 * limits; the call as a whole by its host calls and its time.
 */
import type { ValidateFunction } from 'ajv';
import { compileSchema } from '../outputs/check.js';
import {
  compile,
  DEFAULT_LIMITS,
  RhaiHalt,
  type RhaiHost,
  RhaiHostError,
  type RhaiScript,
  type RunResult,
} from '../rhai/index.js';
import type { ScriptToolDef } from '../shapes/frozen-blueprint.js';
import { SCRIPT_IO_FUNCTIONS, type ScriptIoFunction } from './builtin-names.js';
import {
  answerHost,
  type HostAnswer,
  type HostRequest,
  type HostState,
  PURE_HELPERS,
  SIDE_EFFECTS,
  signatureProblem,
} from './script-host.js';
import { failure, success, type ToolContext, type ToolOutcome, withRetryNote } from './tool.js';

/** Host-function calls one script tool call may make. */
export const MAX_HOST_CALLS = 64;
/** How long one call may take in all, host calls included: half the tool activity's time. */
export const SCRIPT_CALL_SECS = 300;

/** Compiled scripts by their text, so a call does not parse its script again; a worker keeps at most this many. */
const COMPILED_KEPT = 256;
const compiled = new Map<string, RhaiScript>();

function compiledScript(def: ScriptToolDef): RhaiScript | string {
  const hit = compiled.get(def.source);
  if (hit) return hit;
  const result = compile(def.source, def.path);
  if (!result.ok) return result.error.message;
  if (compiled.size >= COMPILED_KEPT) compiled.clear();
  compiled.set(def.source, result.script);
  return result.script;
}

/** The argument checker of a script tool's declared schema; it compiled when the blueprint loaded. */
export function scriptArgsCheck(def: ScriptToolDef): ValidateFunction | undefined {
  const schema = compileSchema(def.parameters);
  return 'validate' in schema ? schema.validate : undefined;
}

/** What a script returned, as the tool result: a string as it is, `()` as nothing, anything else as JSON. */
export function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** The host table of one run: pure helpers, and the I/O functions answered from `journal` or halting. */
function hostFor(journal: readonly HostAnswer[], seen: { next: number; lastRefusal?: string }): RhaiHost {
  const io = (fn: ScriptIoFunction) => (args: unknown[]) => {
    const problem = signatureProblem(fn, args);
    if (problem) throw new RhaiHostError(problem);
    const i = seen.next++;
    const answer = journal[i];
    if (answer === undefined) throw new RhaiHalt(`waiting for ${fn}`, { fn, args } satisfies HostRequest);
    if (answer.ok) return answer.value;
    if (answer.refused) seen.lastRefusal = answer.message;
    throw new RhaiHostError(answer.message);
  };
  return { ...PURE_HELPERS, ...Object.fromEntries(SCRIPT_IO_FUNCTIONS.map((fn) => [fn, io(fn)])) };
}

/** Runs the script tool `def` with arguments already checked against its schema. */
export async function runScriptTool(
  def: ScriptToolDef,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const script = compiledScript(def);
  if (typeof script === 'string')
    return failure('script-tool-failed', `${def.name}: ${script}; fix the script in the blueprint's tools/ folder.`);
  const state: HostState = {
    modifiedPaths: [],
    deadline: Date.now() + SCRIPT_CALL_SECS * 1000,
    shellTimeoutSecs: ctx.scripts?.shellTimeoutSecs ?? 60,
  };
  const journal: HostAnswer[] = [];
  let sideEffects = false;
  for (;;) {
    const seen: { next: number; lastRefusal?: string } = { next: 0 };
    const run: RunResult = script.run({ params: args }, DEFAULT_LIMITS, hostFor(journal, seen));
    if (run.ok) {
      const outcome = success(resultText(run.value), { modifiedPaths: state.modifiedPaths });
      return sideEffects ? withRetryNote(outcome, ctx) : outcome;
    }
    const request = run.error.code === 'rhai-halted' ? (run.error.payload as HostRequest) : undefined;
    if (request === undefined) return scriptError(def, run, seen.lastRefusal, state);
    if (journal.length >= MAX_HOST_CALLS)
      return failure(
        'script-tool-limit',
        `${def.name} called host functions more than ${MAX_HOST_CALLS} times in one call; call it with less work, or make the script do fewer calls.`,
        { modifiedPaths: state.modifiedPaths },
      );
    if (ctx.signal?.aborted)
      return failure('script-tool-failed', `${def.name} was stopped because the call was cancelled.`, {
        modifiedPaths: state.modifiedPaths,
      });
    if (Date.now() >= state.deadline)
      return failure(
        'script-tool-limit',
        `${def.name} ran for more than ${SCRIPT_CALL_SECS} s; call it with less work, or make the script faster.`,
        { modifiedPaths: state.modifiedPaths },
      );
    sideEffects ||= SIDE_EFFECTS.includes(request.fn);
    journal.push(await answerHost(request, ctx, state));
  }
}

function scriptError(
  def: ScriptToolDef,
  run: Extract<RunResult, { ok: false }>,
  lastRefusal: string | undefined,
  state: HostState,
): ToolOutcome {
  const { error } = run;
  const extra = { modifiedPaths: state.modifiedPaths };
  if (error.code === 'rhai-limit')
    return failure(
      'script-tool-limit',
      `${def.name} was stopped: ${error.message}. Call it with less work, or make the script do less.`,
      extra,
    );
  if (lastRefusal !== undefined && error.message.startsWith(lastRefusal))
    return failure('script-host-refused', `${def.name}: ${error.message}.`, extra);
  return failure(
    'script-tool-failed',
    `${def.name} failed: ${error.message}. Check the arguments, or fix the script.`,
    extra,
  );
}
