/**
 * Output validators (docs/reference/blueprint.md#output-validators): the
 * original's `validator = "validators/x.rhai"` in an output table. Each is
 * read and compiled here, at load, so a missing file, a syntax error or a
 * `validate` of the wrong arity stops `lev validate` and `lev run` before any
 * token is spent, and the blueprint carries the source to the workers.
 */
import { VALIDATE_FUNCTION } from '../outputs/validator.js';
import { compile } from '../rhai/index.js';
import type { Blueprint, OutputSpec } from '../shapes/frozen-blueprint.js';
import type { Findings, KeyPath } from './findings.js';
import { readBlueprintScript, scriptFileProblem } from './scripts.js';

function checkOne(bp: Blueprint, spec: OutputSpec | undefined, at: KeyPath, findings: Findings): void {
  const path = spec?.validator;
  if (spec === undefined || path === undefined) return;
  const where = [...at, 'validator'];
  const read = readBlueprintScript(bp.dir, path);
  if (!read.ok) {
    findings.add(
      'output-validator-invalid',
      `The output validator ${scriptFileProblem(path, read.problem)}; point \`validator\` at a .rhai file defining fn ${VALIDATE_FUNCTION}(content).`,
      where,
    );
    return;
  }
  const compiled = compile(read.source, path);
  if (!compiled.ok) {
    findings.add(
      'output-validator-invalid',
      `The output validator does not compile: ${compiled.error.message}; fix the script.`,
      where,
    );
    return;
  }
  if (!compiled.script.hasFunction(VALIDATE_FUNCTION, 1)) {
    findings.add(
      'output-validator-invalid',
      `The output validator "${path}" has no fn ${VALIDATE_FUNCTION}(content) taking one argument; add it, returning () for a good answer or a string saying what is wrong.`,
      where,
    );
    return;
  }
  spec.validatorSource = read.source;
}

export function checkOutputValidators(bp: Blueprint, findings: Findings): void {
  checkOne(bp, bp.agent.output, ['agent', 'output'], findings);
  for (const stage of bp.stages) checkOne(bp, stage.output, ['stages', stage.name, 'output'], findings);
}
