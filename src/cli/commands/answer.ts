/**
 * `lev answer`: answer a question the run waits on, in the form it asks
 * for (docs/reference/interaction.md#answering): text, `--choice`, `--yes`
 * or `--no`, or `--file` for a long text or an edited document.
 */
import type { Command } from 'commander';
import type { AnswerFlags } from '../answer-action.js';
import { parseRunId, withServerOptions } from '../options.js';

export function registerAnswer(program: Command): void {
  withServerOptions(
    program
      .command('answer')
      .description(
        "Answer the question the run waits on: an `ask_user*` call's, a review, an edit, or an interaction point's (the run's `answer` update).",
      )
      .argument('<run-id>', 'the run id `lev run` printed', parseRunId)
      .argument('[call]', 'the call id of the question; may be left out when one question waits')
      .argument('[text]', 'the answer as text: a reply, feedback on a review, or an option by its text')
      .option('--choice <option>', 'pick an option: its number as listed (1 is the first) or its text')
      .option('--yes', 'answer a yes/no question yes; acknowledge a review; keep a document as it is')
      .option('--no', 'answer a yes/no question no')
      .option('--file <path>', 'send the text of a file: an edited document, or a long answer'),
  ).action(async (runId: string, call: string | undefined, text: string | undefined, flags: AnswerFlags) => {
    const { answerArgument } = await import('../answer-action.js');
    const { runOperatorUpdate } = await import('../operator-action.js');
    await runOperatorUpdate(runId, 'answer', answerArgument(call, text, flags), flags);
  });
}
