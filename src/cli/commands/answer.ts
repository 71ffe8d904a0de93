/** `lev answer`: answer the question an `ask_user` call put (docs/reference/operators.md#answer). */
import type { Command } from 'commander';
import type { OperatorFlags } from '../operator-action.js';
import { withServerOptions } from '../options.js';

export function registerAnswer(program: Command): void {
  withServerOptions(
    program
      .command('answer')
      .description(
        "Answer the agent's question; the answer is the `ask_user` call's result (the run's `answer` update).",
      )
      .argument('<run-id>', 'the run id `lev run` printed')
      .argument('[call]', 'the call id of the question; may be left out when one question waits')
      .argument('[text]', 'the answer'),
  ).action(async (runId: string, call: string | undefined, text: string | undefined, flags: OperatorFlags) => {
    const { runOperatorUpdate } = await import('../operator-action.js');
    // With one argument after the run id, it is the answer.
    const [id, answer] = text === undefined ? [undefined, call] : [call, text];
    await runOperatorUpdate(runId, 'answer', { ...(id ? { call: id } : {}), text: answer ?? '' }, flags);
  });
}
