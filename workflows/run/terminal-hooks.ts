/**
 * The stage hooks a run runs as it ends (docs/reference/stage-hooks.md):
 * `on_completion` of the stage it ends in may replace its output, `on_error`
 * its error message; a refusal or a broken hook ends the run in error with
 * `stage-hook-failed`. The decisions are `src/runtime/stage-hooks.ts`'s.
 * Run by runs that ask `TERMINAL_HOOKS`.
 */
import type { RuntimeCode } from '../../src/error-codes.js';
import { terminalHook } from '../../src/runtime/stage-hooks.js';
import type { SubmittedOutput } from '../../src/runtime/types.js';
import type { Content } from '../../src/shapes/content.js';
import type { Blueprint } from '../../src/shapes/frozen-blueprint.js';
import { activities, quickOptions } from '../activities.js';

/** The part of a run these hooks read: where it ends, and the answer it holds. */
interface EndingRun {
  bp: Blueprint;
  driver: { stage: string };
  book: { answer?: SubmittedOutput };
}

function stageOf(run: EndingRun) {
  const def = run.bp.stages.find((s) => s.name === run.driver.stage);
  return def ? { def, index: run.bp.stages.indexOf(def) } : undefined;
}

/** The output as `on_completion` leaves it (its submitted answer too), or why the run fails instead. */
export async function completionHook(
  run: EndingRun,
  final: Content,
): Promise<{ output: Content } | { failed: string }> {
  const at = stageOf(run);
  if (!at?.def.hooks?.on_completion) return { output: final };
  const answer = run.book.answer;
  const output = answer?.content ?? final;
  const text =
    typeof output === 'string'
      ? output
      : await activities.readText.executeWithOptions(quickOptions('final output'), [output]);
  const hooked = terminalHook(at.def, at.index, 'on_completion', text);
  if (hooked === undefined) return { output: final };
  if ('failed' in hooked) return hooked;
  if (answer) run.book.answer = { ...answer, content: hooked.text };
  return { output: hooked.text };
}

/** The failure as `on_error` leaves it: its message replaced, or the hook's own failure. */
export function errorHook(run: EndingRun, code: RuntimeCode, message: string): { code: RuntimeCode; message: string } {
  const at = stageOf(run);
  const hooked = at ? terminalHook(at.def, at.index, 'on_error', message) : undefined;
  if (hooked === undefined) return { code, message };
  if ('failed' in hooked) return { code: 'stage-hook-failed', message: hooked.failed };
  return { code, message: hooked.text };
}
