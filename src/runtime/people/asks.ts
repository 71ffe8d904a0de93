/**
 * What a person is asked and what an answer may be
 * (docs/reference/interaction.md#answering): the question a call of a tool
 * that waits for a person puts (`ask_user`, `ask_user_choice`,
 * `ask_user_confirm`, `present_for_review`, `edit_document`), whether an
 * answer fits the form of the question it answers, and the `lev answer`
 * command and Web UI argument that answer it. Pure: imported by workflow
 * code, the run's validators and the CLI.
 */
import { matchLabel } from '../../blueprint/option-labels.js';
import { contentText } from '../../context/measure.js';
import type { Content, ToolCall } from '../../shapes/content.js';
import { canonicalTool } from '../../tools/builtin-names.js';
import { askUserQuestion } from '../calls.js';
import {
  askTimedOutText,
  askUserNoQuestionText,
  askUserUnattendedText,
  missingPersonArgumentText,
  personAnswerText,
} from '../texts.js';
import type { AnswerForm, PendingAsk } from '../types.js';

/** When an ask was put and when it stops waiting (workflow time in ms). */
export interface AskTimes {
  since: number;
  deadline: number;
}

/** An argument the model wrote as text: inline, or the blob reference the inference stored it as. */
function textArg(args: Record<string, unknown>, key: string): Content | undefined {
  const v = args[key];
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'object' && v !== null && typeof (v as { hash?: unknown }).hash === 'string') return v as Content;
  return undefined;
}

/**
 * The question a call of a tool that waits for a person puts, or the tool
 * result that says why it cannot be asked (a missing argument).
 */
export function toolAsk(
  call: Pick<ToolCall, 'id' | 'name' | 'arguments'>,
  at: AskTimes,
): PendingAsk | { refused: string } {
  const tool = canonicalTool(call.name);
  const args = call.arguments;
  const base = { kind: 'answer' as const, call: call.id, tool, ...at };
  switch (tool) {
    case 'ask_user': {
      const question = askUserQuestion(args);
      return question ? { ...base, subject: question } : { refused: askUserNoQuestionText() };
    }
    case 'ask_user_choice': {
      const prompt = textArg(args, 'prompt');
      const options = Array.isArray(args.options)
        ? args.options.filter((o): o is string => typeof o === 'string' && o.trim() !== '')
        : [];
      if (!prompt) return { refused: missingPersonArgumentText(tool, 'prompt', 'the question to put to the person') };
      if (options.length < 2)
        return { refused: missingPersonArgumentText(tool, 'options', 'at least two options to pick from') };
      return { ...base, subject: contentText(prompt), form: 'choice', options };
    }
    case 'ask_user_confirm': {
      const prompt = textArg(args, 'prompt');
      if (!prompt) return { refused: missingPersonArgumentText(tool, 'prompt', 'the yes/no question') };
      return { ...base, subject: contentText(prompt), form: 'confirm' };
    }
    case 'present_for_review': {
      const markdown = textArg(args, 'markdown');
      if (!markdown) return { refused: missingPersonArgumentText(tool, 'markdown', 'the document to review') };
      const title = textArg(args, 'title');
      return { ...base, subject: title ? contentText(title) : 'Review', form: 'review', document: markdown };
    }
    default: {
      const content = textArg(args, 'content');
      if (!content) return { refused: missingPersonArgumentText(tool, 'content', 'the whole text of the document') };
      const prompt = textArg(args, 'prompt');
      return {
        ...base,
        subject: prompt ? contentText(prompt) : 'Edit the document, then send your version.',
        form: 'edit',
        document: content,
      };
    }
  }
}

/** An answer as an update carries it: exactly one of the three. */
export interface AnswerInput {
  text?: string;
  /** 1-based position of an option, or its label. */
  choice?: number | string;
  yes?: boolean;
}

/** An answer that fits its question: the text the question takes it as, and the label shown back for a pick. */
export interface FittedAnswer {
  /** The answer's text; a pick's label; `Yes` or `No`; empty for an acknowledgement or an unchanged document. */
  text: string;
  /** For `choice` and `confirm`: the label the answer picked. */
  picked?: string;
}

function formOf(ask: PendingAsk): AnswerForm {
  return ask.form ?? 'text';
}

/** The options of a choice, as a refusal lists them: `1. "A", 2. "B"`. */
function listed(options: readonly string[]): string {
  return options.map((o, i) => `${i + 1}. "${o}"`).join(', ');
}

/** The option a `choice` answer names: its 1-based position, or its label. */
function pick(options: readonly string[], choice: number | string): string | undefined {
  if (typeof choice === 'number') return Number.isInteger(choice) ? options[choice - 1] : undefined;
  return matchLabel(options, choice);
}

/**
 * Whether `answer` fits the question `ask` puts, and what it answers; when
 * it does not, `misfit` is the sentence of the `bad-answer` refusal, which
 * says what the question takes.
 */
export function fitAnswer(ask: PendingAsk, answer: AnswerInput): FittedAnswer | { misfit: string } {
  const form = formOf(ask);
  const which = `The question of call ${ask.call}`;
  switch (form) {
    case 'choice': {
      const options = ask.options ?? [];
      const given = answer.choice ?? answer.text;
      const label = given === undefined ? undefined : pick(options, given);
      if (label !== undefined) return { text: label, picked: label };
      return {
        misfit: `${which} takes one of its options, ${listed(options)}: send "choice" with the option's number or its text.`,
      };
    }
    case 'confirm': {
      const yes =
        answer.yes ??
        (answer.text !== undefined && /^(y|yes)$/i.test(answer.text.trim())
          ? true
          : answer.text !== undefined && /^(n|no)$/i.test(answer.text.trim())
            ? false
            : undefined);
      if (yes !== undefined) return { text: yes ? 'Yes' : 'No', picked: yes ? 'Yes' : 'No' };
      return { misfit: `${which} is a yes/no question: send "yes": true or "yes": false.` };
    }
    case 'review':
    case 'edit': {
      if (answer.text !== undefined) return { text: answer.text };
      if (answer.yes === true) return { text: '' };
      return {
        misfit:
          form === 'review'
            ? `${which} shows a document for review: send your feedback as "text", or "yes": true to acknowledge it.`
            : `${which} asks for the edited document: send it whole as "text", or "yes": true to keep the document as it is.`,
      };
    }
    case 'text': {
      if (answer.text !== undefined) return { text: answer.text };
      if (answer.yes === true && ask.optional) return { text: '' };
      return { misfit: `${which} takes a written answer: send it as "text".` };
    }
  }
}

/** The `lev answer` arguments after the call id that answer `ask`, as a person would type them. */
export function answerArguments(ask: PendingAsk): string {
  switch (formOf(ask)) {
    case 'choice':
      return `--choice <1-${ask.options?.length ?? 2}>`;
    case 'confirm':
      return '--yes (or --no)';
    case 'review':
      return '"feedback" (or --yes to acknowledge)';
    case 'edit':
      return '--file <edited file> (or --yes to keep it)';
    case 'text':
      return ask.optional ? '"…" (or --yes to pass)' : '"…"';
  }
}

/** The `answer` update's argument that answers `ask`, as the Web UI's form takes it. */
export function answerJson(ask: PendingAsk): string {
  const call = `"call": ${JSON.stringify(ask.call)}`;
  switch (formOf(ask)) {
    case 'choice':
      return `{${call}, "choice": 1}`;
    case 'confirm':
      return `{${call}, "yes": true}`;
    case 'review':
    case 'edit':
      return `{${call}, "yes": true}`;
    case 'text':
      return `{${call}, "text": "…"}`;
  }
}

/**
 * The tool result of a call of a tool that waits for a person: the answer in
 * the tool's words, or why there is none (nobody attends, nobody answered in
 * time, an argument was missing). `waited`: the call could wait for a person
 * (`questionWaits`); `refused`: why it could not be asked.
 */
export function questionResult(q: { ask?: PendingAsk; answered?: string; refused?: string; waited: boolean }): {
  text: string;
  isError: boolean;
} {
  if (q.ask && q.answered !== undefined) return { text: personAnswerText(q.ask.tool, q.answered), isError: false };
  if (q.ask) return { text: askTimedOutText(q.ask, (q.ask.deadline - q.ask.since) / 1000), isError: true };
  if (!q.waited) return { text: askUserUnattendedText(), isError: true };
  return { text: q.refused ?? askUserNoQuestionText(), isError: true };
}
