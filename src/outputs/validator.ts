/**
 * Running an output validator on a submitted answer, with the original's
 * contract: `validate(content)` returns `()` or `""` for a good answer and a
 * string saying what is wrong otherwise. A validator that fails (throws, runs
 * out of operations, returns anything else) is broken, not a refusal: the
 * answer is taken with a warning, so a bug in the script cannot make the
 * agent retry against a check that never passes. Pure, on the sandboxed
 * interpreter with its default limits.
 */
import { compileOnce } from '../rhai/index.js';
import type { OutputSpec } from '../shapes/frozen-blueprint.js';

/** The function a validator defines, taking the answer as a string. */
export const VALIDATE_FUNCTION = 'validate';

export type ValidatorVerdict = { ok: true; warning?: string } | { ok: false; reason: string };

export function runOutputValidator(spec: OutputSpec | undefined, content: string): ValidatorVerdict {
  const source = spec?.validatorSource;
  if (source === undefined) return { ok: true };
  const path = spec?.validator ?? 'validator';
  const broken = (why: string): ValidatorVerdict => ({
    ok: true,
    warning: `the output validator ${path} is broken (${why}), so the answer was taken unchecked by it; fix the script`,
  });
  // The loader refuses a validator that does not compile; this keeps a forged blueprint's from failing the call.
  const compiled = compileOnce(source, path);
  if (!compiled.ok) return broken(compiled.error.message);
  const run = compiled.script.call(VALIDATE_FUNCTION, [content]);
  if (!run.ok) return broken(run.error.message);
  if (run.value === undefined || run.value === '') return { ok: true };
  if (typeof run.value === 'string') return { ok: false, reason: run.value };
  return broken(`it returned ${Array.isArray(run.value) ? 'an array' : typeof run.value}, not () or a string`);
}
