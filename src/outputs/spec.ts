/**
 * The `submit_output` tool as the model sees it, and the output spec a stage
 * asks for. Pure: imported by workflow code through the runtime helpers.
 */
import type { Blueprint, OutputSpec } from '../shapes/frozen-blueprint.js';

export const SUBMIT_OUTPUT = 'submit_output';

/** What a stage asks for: `[agent.output]` under `[stages.X.output]` (the CLI folds launch flags into both). */
export function stageOutputSpec(bp: Blueprint, stage: string): OutputSpec | undefined {
  const def = bp.stages.find((s) => s.name === stage);
  const agent = bp.agent.output;
  const own = def?.output;
  if (!own) return agent;
  return overlay(agent, own);
}

/** The tool description: the label, instructions, example and schema the answer must follow. */
export function submitOutputDescription(spec: OutputSpec | undefined): string {
  const lines = [
    'Submit your final answer. The call is the answer: whoever started the run receives exactly `content`. Call it once, when the answer is complete; if the answer is refused, the result says why, so fix it and call again.',
  ];
  if (spec?.format)
    lines.push(`Format: ${spec.format}. Give the ${spec.format} itself, with no code fence and no preamble.`);
  if (spec?.instructions) lines.push(`Instructions: ${spec.instructions}`);
  if (spec?.example) lines.push(`Example:\n${spec.example}`);
  if (spec?.schema) lines.push(`The answer must satisfy this JSON Schema:\n${JSON.stringify(spec.schema)}`);
  return lines.join('\n\n');
}

export const SUBMIT_OUTPUT_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    content: { type: 'string', description: 'The final answer, in the requested format.' },
    artifacts: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Files you produced that the caller should read, as paths relative to the working directory: a dataset, a long report, a generated file. Name anything too large for the answer here, and describe it in `content`.',
    },
  },
  required: ['content'],
  additionalProperties: false,
};

/**
 * Later levels win per field. Naming another `format` drops the earlier
 * schema and validator the new level does not replace: a check written for
 * one shape says nothing about another.
 */
function overlay(base: OutputSpec | undefined, top: OutputSpec): OutputSpec {
  const merged: OutputSpec = { ...(base ?? {}), ...top };
  const otherFormat = top.format !== undefined && top.format !== base?.format;
  if (otherFormat && top.schema === undefined) delete merged.schema;
  if (otherFormat && top.validator === undefined) {
    delete merged.validator;
    delete merged.validatorSource;
  }
  return merged;
}

/**
 * `lev run --output-format/--output-instructions`: the caller's request wins
 * over the blueprint's `[agent.output]` and every stage's own output table.
 */
export function withLaunchOutput(bp: Blueprint, launch: OutputSpec): Blueprint {
  if (launch.format === undefined && launch.instructions === undefined && launch.schema === undefined) return bp;
  return {
    ...bp,
    agent: { ...bp.agent, output: overlay(bp.agent.output, launch) },
    stages: bp.stages.map((s) =>
      s.output || s.requireOutput ? { ...s, output: overlay(stageOutputSpec(bp, s.name), launch) } : s,
    ),
  };
}
