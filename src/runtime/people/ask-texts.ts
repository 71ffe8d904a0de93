/**
 * The texts of asks (docs/reference/operators.md): the subject and question a person
 * sees, and the tool results of denied, unanswered and unattended asks. Pure.
 */
import { formatDuration } from '../../blueprint/duration.js';
import { formatCoded } from '../../errors.js';
import type { ToolCall } from '../../shapes/content.js';
import type { PendingAsk } from '../types.js';

/** The main argument of a call, as the details and the questions show it. */
export function callSubject(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = call.arguments;
  const subject = args.path ?? args.command ?? args.pattern ?? args.question ?? args.prompt ?? '';
  const text = typeof subject === 'string' ? subject : JSON.stringify(subject);
  const line = text.split('\n')[0] ?? '';
  return `${call.name}${line ? ` ${line.length > 120 ? `${line.slice(0, 119)}…` : line}` : ''}`;
}

/** The question of an `ask_user` call (`question`, or the original's `prompt`); undefined when it has none. */
export function askUserQuestion(args: Record<string, unknown>): string | undefined {
  const q = args.question ?? args.prompt;
  return typeof q === 'string' && q.trim() !== '' ? q : undefined;
}

/**
 * What a run that ends holding messages says of them (its `messages-undelivered`
 * diagnostic, `lev run`, `lev result`): nobody read them.
 */
export function undeliveredText(count: number): string {
  const what = count === 1 ? '1 message was' : `${count} messages were`;
  return `${what} never delivered: no later stage accepts messages (\`accepts_messages = false\`); send them while a stage that accepts messages runs.`;
}

/** The tool result of a call the operator denied. */
export function deniedText(subject: string, note?: string): string {
  return formatCoded('call-denied', `The operator denied ${subject}${note ? `: ${note}` : ''}. The call was not run.`);
}

/** The tool result of an ask nobody decided within `ask_timeout`. */
export function askTimedOutText(ask: Pick<PendingAsk, 'kind' | 'tool'>, timeoutSecs: number): string {
  const limit = formatDuration(timeoutSecs);
  return ask.kind === 'approval'
    ? formatCoded('ask-timed-out', `Nobody approved ${ask.tool} within ${limit}; the call was not run.`)
    : formatCoded('ask-timed-out', `Nobody answered within ${limit}; go on without the answer.`);
}

/** The tool result of `ask_user` in a run nobody attends. */
export function askUserUnattendedText(): string {
  return formatCoded(
    'ask-user-unattended',
    'Nobody attends this run, so the question cannot be answered; decide for yourself and go on.',
  );
}

/** The tool result of an `ask_user` call without a question. */
export function askUserNoQuestionText(): string {
  return formatCoded('missing-argument', 'ask_user needs `question`: the question to put to the person.');
}
