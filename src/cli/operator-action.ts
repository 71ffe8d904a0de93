/**
 * What the operator commands do (docs/reference/operators.md#commands): send
 * one update to a run, or cancel it, and print the answer; a refusal is the
 * coded error `lev` prints. Loaded only when such a command runs.
 */

import { addressFlag, DEFAULT_ADDRESS } from '../runtime/defaults.js';
import type {
  Answered,
  Decision,
  MessageReceipt,
  OperatorReturn,
  OperatorUpdate,
  PauseState,
} from '../runtime/people/updates.js';
import { cancelRun, sendUpdate } from '../worker/operators.js';
import { type ServerFlags, withClient } from './connect.js';

export interface OperatorFlags extends ServerFlags {
  json?: boolean;
}

/** The sentence a person reads for an update's answer. */
export function describeAnswer(
  runId: string,
  update: OperatorUpdate,
  answer: OperatorReturn,
  address = DEFAULT_ADDRESS,
): string {
  switch (update) {
    case 'message': {
      const r = answer as MessageReceipt;
      if (r.held) return `message held for run ${runId}: the next stage that accepts messages reads it`;
      return `message queued for stage ${r.stage}: the model reads it at turn ${r.stageTurn} (run inference ${r.turn})`;
    }
    case 'approve':
    case 'deny': {
      const d = answer as Decision;
      return `${d.decision} call ${d.call} (${d.tool})${d.note ? ` with the note "${d.note}"` : ''}`;
    }
    case 'answer': {
      const a = answer as Answered;
      return `answered call ${a.call}${a.answer !== undefined ? `: ${a.answer}` : ''}`;
    }
    case 'pause':
    case 'resume': {
      const p = answer as PauseState;
      return p.paused
        ? `run ${runId} paused: ${p.stage ? `stage ${p.stage} stops` : 'the next stage stops'} before its next inference; lev resume ${runId}${addressFlag(address)} goes on`
        : `run ${runId} resumed`;
    }
  }
}

export async function runOperatorUpdate(
  runId: string,
  update: OperatorUpdate,
  arg: unknown,
  flags: OperatorFlags,
): Promise<void> {
  const answer = await withClient(flags, (client) => sendUpdate(client, runId, update, arg));
  process.stdout.write(
    `${flags.json ? JSON.stringify(answer) : describeAnswer(runId, update, answer, flags.address)}\n`,
  );
}

export async function runCancel(
  runId: string,
  flags: OperatorFlags & { wait?: boolean; grace: number },
): Promise<void> {
  const graceMs = flags.grace * 1000;
  const end = await withClient(flags, (client) => cancelRun(client, runId, { wait: flags.wait === true, graceMs }));
  if (flags.json) process.stdout.write(`${JSON.stringify({ runId, requested: true, ...end })}\n`);
  else if (end.terminated) process.stdout.write(`run ${runId} terminated: ${end.terminated}\n`);
  else
    process.stdout.write(
      end.status
        ? `run ${runId} ended: ${end.status}\n`
        : `cancellation requested for run ${runId}: it stops at its next safe point and ends CANCELED\n`,
    );
}
