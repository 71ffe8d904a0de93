/**
 * The questions `lev run` puts to the person at its terminal while the same
 * question is open in the Web UI (docs/reference/operators.md#attended-runs):
 * an approval `[y/N/note]`, an `ask_user` question, an interactive stage's
 * reply. Each answer goes to the run as its update; an answer given
 * elsewhere first closes the question here. Without a terminal it says
 * which `lev` command answers instead.
 */
import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import { isLevError } from '../errors.js';
import { addressFlag } from '../runtime/defaults.js';
import type { Progress } from '../runtime/types.js';
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
        let text = '';
        while (text.trim() === '') text = await ask(`\n[${p.stage}] ${first.subject}\n> `);
        await sendUpdate(client, runId, 'answer', { call: first.call, text });
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

/** Without a terminal nobody can answer here: say which command does. */
export function commandHint(runId: string, address: string): (p: Progress) => Promise<void> {
  const at = addressFlag(address);
  return async (p) => {
    const first = p.asks[0];
    const line =
      first?.kind === 'approval'
        ? `approve \`${first.subject}\` with: lev approve ${runId} ${first.call}${at} (or lev deny ${runId} ${first.call} --note "why"${at})`
        : first?.kind === 'answer'
          ? `answer "${first.subject}" with: lev answer ${runId} ${first.call} "your answer"${at}`
          : `reply with: lev msg ${runId} "your reply"${at} (/done ends the stage)`;
    process.stderr.write(`[${p.stage}] waits for a person; ${line}\n`);
  };
}
