/**
 * The texts the model reads that the runtime writes, in one place: the tool
 * results of denied, unanswered and unattended asks
 * (docs/reference/operators.md), of invalid and failed calls and the pointer
 * to a tracked file (docs/reference/routing.md), and the answers of the agent tools
 * (docs/reference/sub-agents.md). The stage modes' reminders are in
 * `stage-modes.ts`, beside the rules that send them. Pure.
 */
import { formatDuration } from '../blueprint/duration.js';
import { formatCoded } from '../errors.js';
import type { WorkerEnd } from './agents/queue.js';
import type { PendingAsk } from './types.js';

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

/** The tool result of a call of a tool that waits for a person without an argument it needs. */
export function missingPersonArgumentText(tool: string, arg: string, what: string): string {
  return formatCoded('missing-argument', `${tool} needs \`${arg}\`: ${what}.`);
}

/**
 * The tool result of a question a person answered, as the original Leviath words it
 * (docs/reference/interaction.md#the-asking-tools): `ask_user` gets the answer as given.
 */
export function personAnswerText(tool: string, answer: string): string {
  switch (tool) {
    case 'ask_user_choice':
      return `User chose: ${answer}`;
    case 'ask_user_confirm':
      return `User answered: ${answer}`;
    case 'present_for_review':
      return answer.trim() === '' ? 'User reviewed the document and acknowledged.' : `User feedback: ${answer}`;
    case 'edit_document':
      return answer.trim() === ''
        ? 'User made no changes; the document stands as you sent it.'
        : `User-edited document:\n${answer}`;
    default:
      return answer;
  }
}

/** The tool result a call with unparseable arguments receives. */
export function invalidArgumentsText(tool: string, error: string): string {
  // A refusal the provider adapter already coded (arguments too large) reaches the model as it is.
  if (/^\[[a-z0-9-]+\] /.test(error)) return error;
  return formatCoded(
    'bad-argument',
    `the arguments of ${tool} were not a JSON object (${error}); call it again with valid JSON.`,
  );
}

/** The tool result of a tool activity that failed after its retries. */
export function toolFailedText(tool: string, message: string): string {
  return formatCoded('tool-failed', `${tool} failed: ${message}`);
}

/**
 * The tool result that stands in for a tracked file's text once the text is
 * stored in the file-tracking region: the model reads the file there.
 */
export function trackedPointer(tool: string, key: string, tokens: number, region: string): string {
  return `${tool} ${key}: the file's text (${tokens} tokens) is kept in region "${region}" under key "${key}", already in your prompt.`;
}

/** The result text of a `spawn_agent {wait = false}` call. */
export function startedText(id: string, label: string): string {
  return `Started agent ${id} (${label}). It runs on its own: check_agent {"id": "${id}"} says how it is doing, wait_for_agent {"id": "${id}"} waits for its answer, kill_agent stops it.`;
}

/** What check_agent says about an agent that is still going. */
export function runningText(id: string): string {
  return `agent ${id} is still running; wait_for_agent {"id": "${id}"} waits for its answer.`;
}

/** The tool result of an agent that ended without an answer. */
export function agentFailedText(id: string, end: Exclude<WorkerEnd, { status: 'completed' }>): string {
  return formatCoded(
    'agent-failed',
    `agent ${id} ${end.status === 'cancelled' ? 'was cancelled' : 'failed'}: ${end.error}`,
  );
}

/** The refusal of a `fan_out` call that shares its turn with other calls. */
export const FAN_OUT_NOT_ALONE_MESSAGE =
  'fan_out waits for all its workers, so it must be the only tool call of its turn; the other calls ran. Call fan_out again on its own, with every item in that one call.';

/** The refusal of an agent id this visit did not start. */
export function agentNotFoundMessage(id: string, known: readonly string[]): string {
  return `this stage visit started no agent ${id}; ${known.length > 0 ? `its agents: ${known.join(', ')}` : 'it has started none'}.`;
}

/** What `kill_agent` answers once the agent has ended. */
export function killedText(id: string, status: WorkerEnd['status']): string {
  return status === 'cancelled' ? `agent ${id} was stopped.` : `agent ${id} had already ended (${status}).`;
}

/** What `send_to_agent` answers to an agent that has ended. */
export function alreadyEndedText(id: string, status: WorkerEnd['status']): string {
  return `agent ${id} has already ended (${status}).`;
}

/** What `send_to_agent` answers when the message went. */
export function sentText(id: string): string {
  return `Sent the message to agent ${id}.`;
}

/** What `send_to_agent` answers when sending failed. */
export function sendFailedText(error: string): string {
  return formatCoded('tool-failed', `send_to_agent failed: ${error}`);
}
