/**
 * The argument `lev answer` sends as the run's `answer` update
 * (docs/reference/interaction.md#answering): exactly one of the text,
 * `--choice`, `--yes`, `--no` and `--file`, and the call id before it.
 */
import { LevError } from '../errors.js';
import { valueOrFile } from './launch-flags.js';
import type { OperatorFlags } from './operator-action.js';

/** What `lev answer` takes besides the run, the call and the text. */
export interface AnswerFlags extends OperatorFlags {
  choice?: string;
  yes?: boolean;
  no?: boolean;
  file?: string;
}

/** `{call?, text | choice | yes}` from the command's arguments; one positional after the run id is the text, unless a flag answers. */
export function answerArgument(
  first: string | undefined,
  second: string | undefined,
  flags: Pick<AnswerFlags, 'choice' | 'yes' | 'no' | 'file'>,
): Record<string, unknown> {
  const flagged = [
    flags.choice !== undefined ? '--choice' : undefined,
    flags.yes ? '--yes' : undefined,
    flags.no ? '--no' : undefined,
    flags.file !== undefined ? '--file' : undefined,
  ].filter((f) => f !== undefined);
  // With a flag, a lone positional is the call; without one, it is the text.
  const [call, text] = flagged.length > 0 || second !== undefined ? [first, second] : [undefined, first];
  const given = [...flagged, ...(text !== undefined ? ['the text'] : [])];
  if (given.length > 1)
    throw new LevError(
      'answer-ambiguous',
      `lev answer was given ${given.join(' and ')}; give one answer: the text, --choice, --yes, --no or --file.`,
    );
  const at = call ? { call } : {};
  if (flags.choice !== undefined)
    return { ...at, choice: /^\d+$/.test(flags.choice.trim()) ? Number(flags.choice.trim()) : flags.choice };
  if (flags.yes || flags.no) return { ...at, yes: flags.yes === true };
  if (flags.file !== undefined) return { ...at, text: valueOrFile(`@${flags.file}`, '--file') };
  return { ...at, text: text ?? '' };
}
