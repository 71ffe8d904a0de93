/**
 * What a script tool may call besides the interpreter's built-ins
 * (docs/reference/script-tools.md#host-functions): four pure helpers, and six
 * functions that reach the machine, each answering to the same rules as the
 * tool it mirrors. A file is read or written inside the workdir (or a granted
 * read path) through the file tools' confinement; a command runs in the
 * command sandbox; a request goes out under `[web]`; a variable is readable
 * only if a sandboxed command could see it. `[tool_script_permissions]` of the
 * user's config may deny any of the six, or allow the file and command ones
 * whatever the stage's `[tool_permissions]` say.
 */

import type { ScriptIoFunction } from './builtin-names.js';
import { canonicalWorkdir } from './confine.js';
import { decodeText, openForRead, readRange } from './open-once.js';
import { strictestDecision } from './permissions.js';
import { runShell, truncationMarker } from './run-shell.js';
import { BASE_ENV, DEFAULT_SANDBOX, prepareCommand } from './sandbox.js';
import type { ToolContext } from './tool.js';
import { htmlText, scriptHttp } from './web-fetch.js';
import { DEFAULT_WEB_POLICY } from './web-policy.js';
import { writeFileTool } from './write-file.js';

/** Functions that change something outside the script; a retried call says they may have run twice. */
export const SIDE_EFFECTS: readonly ScriptIoFunction[] = ['http_post', 'shell', 'write_file'];

/** The longest file `read_file` hands a script: the interpreter's largest string. */
export const SCRIPT_READ_CAP_BYTES = 1_000_000;

/** One call of a host function the script made, as it made it. */
export interface HostRequest {
  fn: ScriptIoFunction;
  args: unknown[];
}

/** Its answer: a value, or a failure the script sees as a runtime error (`refused`: a rule said no). */
export type HostAnswer = { ok: true; value: unknown } | { ok: false; refused: boolean; message: string };

/** What a call of a script tool carries between host calls. */
export interface HostState {
  /** Workdir-relative paths its `write_file` calls changed. */
  modifiedPaths: string[];
  /** When the call must be done, in ms since the epoch. */
  deadline: number;
  /** Seconds a `shell` call may take (`[limits] script_shell_timeout_secs`). */
  shellTimeoutSecs: number;
}

type Signature = readonly ('string' | 'map')[];

/** What each function takes: required arguments, then optional ones. */
const SIGNATURES: Record<ScriptIoFunction, { required: Signature; optional: Signature; shape: string }> = {
  http_get: { required: ['string'], optional: ['map'], shape: 'http_get(url [, headers])' },
  http_post: { required: ['string', 'string'], optional: ['map'], shape: 'http_post(url, body [, headers])' },
  shell: { required: ['string'], optional: [], shape: 'shell(command)' },
  read_file: { required: ['string'], optional: [], shape: 'read_file(path)' },
  write_file: { required: ['string', 'string'], optional: [], shape: 'write_file(path, content)' },
  env_var: { required: ['string'], optional: [], shape: 'env_var(name)' },
};

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why these arguments do not fit the function, in Rhai's words, or undefined when they do. */
export function signatureProblem(fn: ScriptIoFunction, args: readonly unknown[]): string | undefined {
  const { required, optional, shape } = SIGNATURES[fn];
  const fits =
    args.length >= required.length &&
    args.length <= required.length + optional.length &&
    args.every((a, i) =>
      (required[i] ?? optional[i - required.length]) === 'string' ? typeof a === 'string' : isMap(a),
    );
  return fits ? undefined : `Function not found: ${fn} with these arguments; it is called as ${shape}`;
}

/** RFC 3986 percent-encoding of a query component, byte by byte, as the original's `encode_uri`. */
export function encodeUri(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The helpers that only transform values; they run inside the interpreter's call. */
export const PURE_HELPERS = {
  encode_uri: ([text]: unknown[]) => encodeUri(String(text ?? '')),
  html_to_text: ([html]: unknown[]) => htmlText(String(html ?? '')),
} as const;

const refused = (message: string): HostAnswer => ({ ok: false, refused: true, message });
const failed = (message: string): HostAnswer => ({ ok: false, refused: false, message });

/** The built-in whose `[tool_permissions]` a file or command function answers to. */
const MIRRORS: Partial<Record<ScriptIoFunction, 'shell' | 'read_file' | 'write_file'>> = {
  shell: 'shell',
  read_file: 'read_file',
  write_file: 'write_file',
};

/** Why the function may not run here, or undefined when it may. */
function permissionRefusal(req: HostRequest, ctx: ToolContext): string | undefined {
  const setting = ctx.scripts?.permissions[req.fn] ?? 'inherit';
  if (setting === 'deny')
    return `${req.fn} is denied to script tools by [tool_script_permissions] ${req.fn} = "deny" in your config`;
  if (req.fn === 'shell' && ctx.scripts?.noCommands)
    return `shell does not run in a script tool here, because ${ctx.scripts.noCommands}`;
  const builtin = MIRRORS[req.fn];
  if (builtin === undefined) return undefined;
  const args = builtin === 'shell' ? { command: req.args[0] } : { path: req.args[0] };
  // `allow` in the user's config stands for the stage's own permission; a sub-agent's ancestors still apply.
  const own = { permissions: ctx.permissions, safeCommands: ctx.safeCommands };
  const layers = setting === 'allow' ? [...(ctx.ceilings ?? [])] : [own, ...(ctx.ceilings ?? [])];
  const decision = strictestDecision(builtin, args, layers, true);
  if (decision.mode === 'allow') return undefined;
  const lead = `${req.fn} inside a script tool runs only where \`${builtin}\` itself would run without asking`;
  if (decision.code === 'permission-denied') return `${lead}, and [tool_permissions] denies \`${builtin}\` here`;
  return `${lead}, and here \`${builtin}\` would wait for a person's approval, which nobody is asked for in the middle of a script; set [tool_permissions] ${builtin} = "allow", or ${req.fn} = "allow" in [tool_script_permissions] of your config`;
}

/** Runs one host request; never throws. */
export async function answerHost(req: HostRequest, ctx: ToolContext, state: HostState): Promise<HostAnswer> {
  const why = permissionRefusal(req, ctx);
  if (why) return refused(why);
  try {
    return await perform(req, ctx, state);
  } catch (err) {
    return failed(`${req.fn} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function headersOf(v: unknown): Record<string, string> {
  return isMap(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]))
    : {};
}

async function perform(req: HostRequest, ctx: ToolContext, state: HostState): Promise<HostAnswer> {
  const [a0, a1, a2] = req.args as [string, unknown, unknown];
  switch (req.fn) {
    case 'http_get':
    case 'http_post': {
      const policy = ctx.web ?? DEFAULT_WEB_POLICY;
      const sending =
        req.fn === 'http_get' ? { method: 'GET' as const } : { method: 'POST' as const, body: a1 as string };
      const got = await scriptHttp(
        a0,
        sending,
        headersOf(req.fn === 'http_get' ? a1 : a2),
        policy,
        policy.maxBytes,
        ctx.signal,
      );
      if (got.ok) return { ok: true, value: got.text };
      return { ok: false, refused: got.refused, message: `${req.fn}: ${got.message}` };
    }
    case 'env_var': {
      const visible = [...BASE_ENV, ...(ctx.sandbox ?? DEFAULT_SANDBOX).env];
      if (!visible.includes(a0))
        return refused(
          `env_var: \`${a0}\` is withheld; a script reads only the variables a sandboxed command sees (${visible.join(', ')}), so add it to [sandbox] env to hand it over`,
        );
      const value = (ctx.env ?? process.env)[a0];
      return value === undefined ? failed(`env_var: \`${a0}\` is not set`) : { ok: true, value };
    }
    case 'read_file':
      return readForScript(a0, ctx);
    case 'write_file': {
      const outcome = await writeFileTool.run({ path: a0, content: a1 as string }, ctx);
      state.modifiedPaths.push(...(outcome.modifiedPaths ?? []));
      return outcome.isError
        ? { ok: false, refused: outcome.denied === true, message: `write_file: ${outcome.content}` }
        : { ok: true, value: outcome.content };
    }
    case 'shell':
      return shellForScript(a0, ctx, state);
  }
}

async function readForScript(path: string, ctx: ToolContext): Promise<HostAnswer> {
  const opened = await openForRead(path, ctx, 'file');
  if (!opened.ok)
    return { ok: false, refused: !('missing' in opened && opened.missing), message: `read_file: ${opened.message}` };
  const { display, handle, info } = opened;
  try {
    if (info.isDirectory()) return failed(`read_file: ${display} is a directory`);
    if (info.size > SCRIPT_READ_CAP_BYTES)
      return failed(
        `read_file: ${display} is ${info.size} bytes, more than the ${SCRIPT_READ_CAP_BYTES} a script can hold`,
      );
    const bytes = await readRange(handle, 0, info.size);
    if (bytes.includes(0)) return failed(`read_file: ${display} looks binary (it contains NUL bytes)`);
    return { ok: true, value: decodeText(bytes).text };
  } finally {
    await handle.close();
  }
}

async function shellForScript(command: string, ctx: ToolContext, state: HostState): Promise<HostAnswer> {
  const left = Math.floor((state.deadline - Date.now()) / 1000);
  const timeoutSecs = Math.max(1, Math.min(state.shellTimeoutSecs, left));
  const cwd = await canonicalWorkdir(ctx.workdir);
  const prepared = prepareCommand(command, cwd, ctx.sandbox ?? DEFAULT_SANDBOX);
  if (!prepared.ok) return refused(`shell: ${prepared.message}`);
  const run = await runShell(prepared.run, { cwd, timeoutSecs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  const output = run.output + truncationMarker(run);
  if (run.spawnError !== undefined) return failed(`shell: bash could not be started (${run.spawnError})`);
  if (run.timedOut) return failed(`shell: the command was stopped after ${timeoutSecs} s. Output so far:\n${output}`);
  if (run.aborted) return failed('shell: the command was stopped because the call was cancelled');
  if (run.exitCode !== 0)
    return failed(`shell: the command exited with code ${run.exitCode ?? 'unknown (killed by a signal)'}:\n${output}`);
  return { ok: true, value: output };
}
