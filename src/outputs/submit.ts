/**
 * The `submit_output` tool: checks the answer against the stage's output
 * spec (format, schema, then the Rhai validator) and says why when it refuses it, so the model can fix the answer and
 * call again. Nothing is recorded until a submission passes, so a bad
 * correction never replaces a good answer.
 */

import { formatCoded } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { checkAnswer } from './check.js';
import { stageOutputSpec } from './spec.js';
import { runOutputValidator } from './validator.js';

/** Largest answer accepted: an answer is one model response, not a file. */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** The `artifacts` a call names, as the tool worker checked them against the workdir (`src/tools/artifacts.ts`). */
export type Artifacts = { ok: true; paths: string[] } | { ok: false; reply: string };

export type Submission =
  | { ok: true; format: string; text: string; artifacts: string[]; reply: string }
  | { ok: false; reply: string };

/** `artifacts`: the checked paths the call names, which refuse an otherwise valid answer when they are refused; none when absent. */
export function submitOutput(
  bp: Blueprint,
  stage: string,
  args: Record<string, unknown>,
  artifacts: Artifacts = { ok: true, paths: [] },
): Submission {
  const content = args.content;
  if (typeof content !== 'string')
    return {
      ok: false,
      reply: formatCoded('bad-argument', 'submit_output needs `content`, the answer as a string; call it again.'),
    };
  if (Buffer.byteLength(content, 'utf8') > MAX_ANSWER_BYTES)
    return {
      ok: false,
      reply: formatCoded(
        'output-too-large',
        `the answer is larger than ${MAX_ANSWER_BYTES / 1024} KiB; write the bulk to a file and submit a shorter answer that names it.`,
      ),
    };
  const spec = stageOutputSpec(bp, stage);
  const verdict = checkAnswer(spec, content);
  if (!verdict.ok)
    return {
      ok: false,
      reply: formatCoded('output-invalid', `${verdict.reason}; fix the answer and call submit_output again.`),
    };
  if (!artifacts.ok) return artifacts;
  const judged = runOutputValidator(spec, content);
  if (!judged.ok)
    return {
      ok: false,
      reply: formatCoded('output-invalid', `${judged.reason}; fix the answer and call submit_output again.`),
    };
  const format = spec?.format ?? 'text';
  const files = artifacts.paths.length;
  const accepted = `Final output accepted (${format}, ${content.length} characters${files > 0 ? `, ${files} artifact${files === 1 ? '' : 's'}` : ''}).`;
  return {
    ok: true,
    format,
    text: content,
    artifacts: artifacts.paths,
    reply: judged.warning ? `${accepted} Warning: ${judged.warning}.` : accepted,
  };
}
