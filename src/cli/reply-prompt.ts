/**
 * The questions `lev run` puts to the person at its terminal while the same
 * question is open in the Web UI (docs/reference/operators.md#attended-runs):
 * an approval `[y/N/note]`, a question in the form its tool or interaction
 * point asks for (text, a numbered choice, yes/no, a document to review or to
 * edit in a file; docs/reference/interaction.md#at-the-terminal), an
 * interactive stage's reply. Each answer goes to the run as its update; an
 * answer given elsewhere first closes the question here. Without a terminal
 * it says which `lev` command answers instead.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import { openBlobStore, parseBlobSpec } from '../blobs/index.js';
import { matchLabel } from '../blueprint/option-labels.js';
import { isLevError } from '../errors.js';
import { addressFlag } from '../runtime/defaults.js';
import { defaultRuntimeConfig } from '../runtime/node/run-store.js';
import { answerArguments } from '../runtime/people/asks.js';
import type { PendingAsk, Progress } from '../runtime/types.js';
import type { Content } from '../shapes/content.js';
import { dataPath } from '../state/locations.js';
import { sendUpdate } from '../worker/operators.js';
import { DETACHED } from './follow-terminal.js';

/** What a line typed at `[y/N/note]` decides: `y` approves, Enter or `n` denies, other text denies with it as the note. */
export function approvalAnswer(line: string): { update: 'approve' | 'deny'; note?: string } {
  const text = line.trim();
  const yes = /^(y|yes)\b\s*(.*)$/is.exec(text);
  if (yes) return { update: 'approve', ...(yes[2] ? { note: yes[2] } : {}) };
  if (text === '' || /^(n|no)$/i.test(text)) return { update: 'deny' };
  return { update: 'deny', note: text };
}

/** Where the questions are asked: the terminal, or streams a test drives. */
export interface Terminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Asks the question the run waits on at the terminal and sends the answer; `signal` closes it unanswered. */
export function terminalAnswers(
  client: Client,
  runId: string,
  terminal: Terminal = { input: process.stdin, output: process.stderr },
): (p: Progress, signal: AbortSignal) => Promise<void> {
  return async (p, signal) => {
    const rl = createInterface({ input: terminal.input, output: terminal.output });
    const say = (line: string) => terminal.output.write(line);
    // At the prompt the terminal hands Ctrl-C to readline; pass it on, so it detaches as anywhere else.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    const ask = (query: string) => rl.question(query, { signal });
    try {
      const first = p.asks[0];
      if (first?.kind === 'approval') {
        const answer = approvalAnswer(
          await ask(`\n[${p.stage}] approve \`${first.subject}\` (call ${first.call})? [y/N/note] `),
        );
        await sendUpdate(client, runId, answer.update, {
          call: first.call,
          ...(answer.note ? { note: answer.note } : {}),
        });
      } else if (first?.kind === 'answer') {
        const answer = await answerAtTerminal(first, p.stage, runId, ask, say);
        await sendUpdate(client, runId, 'answer', { call: first.call, ...answer });
      } else {
        const line = await ask(`\n[${p.stage}] waiting for your reply (a blank line or /done ends the stage)\n> `);
        await sendUpdate(client, runId, 'message', line.trim() === '' ? '/done' : line);
      }
    } catch (err) {
      if (signal.aborted) {
        if (signal.reason !== DETACHED) say('\n(answered elsewhere)\n');
      }
      // The question closed between the prompt and the answer: say so and let the run go on.
      else if (isLevError(err)) say(`error [${err.code}] ${err.message}\n`);
      else throw err;
    } finally {
      rl.close();
    }
  };
}

/** What a line typed at a choice names: the option's number as listed, or its text. */
export function choiceAnswer(options: readonly string[], line: string): number | undefined {
  const text = line.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= 1 && n <= options.length ? n : undefined;
  }
  const label = text === '' ? undefined : matchLabel(options, text);
  return label === undefined ? undefined : options.indexOf(label) + 1;
}

/** What a line typed at a yes/no question answers; undefined for anything else. */
export function confirmAnswer(line: string): boolean | undefined {
  const text = line.trim();
  if (/^(y|yes)$/i.test(text)) return true;
  if (/^(n|no)$/i.test(text)) return false;
  return undefined;
}

/**
 * Puts one question at the terminal in its form and returns the answer as the
 * `answer` update takes it; asks again until the line fits.
 */
async function answerAtTerminal(
  q: PendingAsk,
  stage: string,
  runId: string,
  ask: (query: string) => Promise<string>,
  say: (line: string) => void,
): Promise<{ text: string } | { choice: number } | { yes: boolean }> {
  const where = q.point !== undefined ? `[${stage}] checkpoint ${q.point}` : `[${stage}]`;
  if (q.document !== undefined && q.form !== 'edit')
    say(`\n${where} ${q.form === 'review' ? 'for review' : 'the document'}:\n${await wholeText(q.document)}\n`);
  switch (q.form) {
    case 'choice': {
      const options = q.options ?? [];
      const listed = options.map((o, i) => `  ${i + 1}. ${o}`).join('\n');
      for (;;) {
        const choice = choiceAnswer(
          options,
          await ask(`\n${where} ${q.subject}\n${listed}\nchoose 1-${options.length}> `),
        );
        if (choice !== undefined) return { choice };
      }
    }
    case 'confirm':
      for (;;) {
        const yes = confirmAnswer(await ask(`\n${where} ${q.subject} [y/n] `));
        if (yes !== undefined) return { yes };
      }
    case 'review': {
      const line = await ask(`\n${where} ${q.subject}: your feedback (Enter acknowledges it)\n> `);
      return line.trim() === '' ? { yes: true } : { text: line };
    }
    case 'edit': {
      const file = await editFile(runId, q);
      await ask(
        `\n${where} ${q.subject}\nedit ${file} and press Enter to send it (leave it as it is to keep the document) `,
      );
      const edited = readFileSync(file, 'utf8');
      return edited === (await wholeText(q.document ?? '')) ? { yes: true } : { text: edited };
    }
    default: {
      for (;;) {
        const text = await ask(`\n${where} ${q.subject}${q.optional ? ' (Enter passes)' : ''}\n> `);
        if (text.trim() !== '') return { text };
        if (q.optional) return { yes: true };
      }
    }
  }
}

/** The whole text of a document: inline, or read from the blob store this machine is configured with. */
async function wholeText(document: Content): Promise<string> {
  if (typeof document === 'string') return document;
  const config = defaultRuntimeConfig(process.env);
  const store = openBlobStore(parseBlobSpec(config.blobs, config.blobDir), 1);
  try {
    return await store.get(document.hash);
  } catch {
    // Another machine's store: the preview is what this one can show.
    return `${document.preview}… (${document.bytes} bytes; the rest is in the run's blob store)`;
  } finally {
    if ('close' in store && typeof store.close === 'function') await store.close();
  }
}

/** Writes the document to edit into a file in the data folder's `edits/`, named for the run and the call. */
async function editFile(runId: string, q: PendingAsk): Promise<string> {
  const dir = dataPath('edits');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${runId}-${q.call}.md`.replace(/[^A-Za-z0-9._-]/g, '_'));
  writeFileSync(file, await wholeText(q.document ?? ''));
  return file;
}

/** Without a terminal nobody can answer here: say which command does. */
export function commandHint(runId: string, address: string): (p: Progress) => Promise<void> {
  const at = addressFlag(address);
  return async (p) => {
    const first = p.asks[0];
    const line =
      first?.kind === 'approval'
        ? `approve \`${first.subject}\` with: lev approve ${runId} ${first.call}${at} (or lev deny ${runId} ${first.call} --note "why"${at})`
        : first?.kind === 'answer'
          ? `answer "${first.subject}" with: lev answer ${runId} ${first.call} ${first.form === undefined ? '"your answer"' : answerArguments(first)}${at}`
          : `reply with: lev msg ${runId} "your reply"${at} (/done ends the stage)`;
    process.stderr.write(`[${p.stage}] waits for a person; ${line}\n`);
  };
}
