import { z } from 'zod';
import { canonicalWorkdir } from './confine.js';
import { runShell, truncationMarker } from './run-shell.js';
import { DEFAULT_SANDBOX, prepareCommand } from './sandbox.js';
import { defineTool, failure, success, withRetryNote } from './tool.js';

export const DEFAULT_SHELL_TIMEOUT_SECS = 120;
const MAX_SHELL_TIMEOUT_SECS = 3600;

const schema = z
  .object({
    command: z.string().min(1).describe('Command line run with `bash -c` in the working directory.'),
    timeout_secs: z
      .number()
      .int()
      .min(1)
      .max(MAX_SHELL_TIMEOUT_SECS)
      .optional()
      .describe(`Stop the command after this many seconds (default ${DEFAULT_SHELL_TIMEOUT_SECS}).`),
  })
  .strict();

export const shellTool = defineTool({
  name: 'shell',
  description:
    'Run a shell command (bash -c) in the working directory. Returns combined stdout and stderr (capped at 900 KB) and the exit code.',
  schema,
  async run(args, ctx) {
    const timeoutSecs = args.timeout_secs ?? ctx.shellTimeoutSecs ?? DEFAULT_SHELL_TIMEOUT_SECS;
    let cwd: string;
    try {
      cwd = await canonicalWorkdir(ctx.workdir);
    } catch {
      return failure(
        'workdir-missing',
        `The working directory ${ctx.workdir} does not exist; create it or run from an existing directory.`,
      );
    }
    const prepared = prepareCommand(args.command, cwd, ctx.sandbox ?? DEFAULT_SANDBOX);
    if (!prepared.ok) return failure(prepared.code, prepared.message);
    const run = await runShell(prepared.run, { cwd, timeoutSecs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    const output = run.output + truncationMarker(run);
    if (run.spawnError !== undefined) {
      return withRetryNote(
        failure('shell-failed', `bash could not be started (${run.spawnError}); check that bash is installed.`),
        ctx,
      );
    }
    if (run.timedOut) {
      return withRetryNote(
        failure(
          'shell-timeout',
          `the command was stopped after ${timeoutSecs} s; pass a larger timeout_secs (at most ${MAX_SHELL_TIMEOUT_SECS}) or make it faster. Output so far:\n${output}`,
        ),
        ctx,
      );
    }
    if (run.aborted)
      return withRetryNote(
        failure('shell-cancelled', `the command was stopped because the call was cancelled. Output so far:\n${output}`),
        ctx,
      );
    if (run.exitCode !== 0) {
      return withRetryNote(
        failure(
          'shell-exit',
          `the command exited with code ${run.exitCode ?? 'unknown (killed by a signal)'}.\n${output}`,
        ),
        ctx,
      );
    }
    return withRetryNote(success(`${output}${output === '' || output.endsWith('\n') ? '' : '\n'}[exit code 0]`), ctx);
  },
});
