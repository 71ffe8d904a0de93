/**
 * What `lev events` does: reads a run's stream through `subscribeRun` and
 * prints a line per event (`eventLine`), or with `--json` each item as one
 * JSON object; an unknown run is a coded error. Ctrl-C stops it.
 */

import { eventLine } from '../stream/event-lines.js';
import { subscribeRun } from '../stream/subscribe.js';
import { describeRun } from '../worker/runs.js';
import { withClient } from './connect.js';

/** The options of `lev events` (declared in `commands/event-stream.ts`). */
export interface EventsFlags {
  address: string;
  namespace: string;
  json?: boolean;
  from?: number;
  /** `--no-follow` sets it false. */
  follow: boolean;
  tokens?: boolean;
}

export async function printEvents(runId: string, flags: EventsFlags): Promise<void> {
  await withClient(flags, async (client) => {
    await describeRun(client, runId, flags.address);
    const stop = new AbortController();
    const onInt = () => stop.abort();
    process.once('SIGINT', onInt);
    let textTurn: number | undefined;
    try {
      for await (const item of subscribeRun(client, runId, {
        ...(flags.from !== undefined ? { from: flags.from } : {}),
        follow: flags.follow,
        tokens: flags.tokens === true,
        signal: stop.signal,
      })) {
        if (flags.json) process.stdout.write(`${JSON.stringify(item)}\n`);
        else if (item.kind === 'text') {
          // The text of one turn on one line as it grows; the turn's end starts a new line.
          if (textTurn !== item.turn) process.stdout.write(`text turn ${item.turn}: `);
          textTurn = item.turn;
          process.stdout.write(item.text);
        } else {
          if (textTurn !== undefined) process.stdout.write('\n');
          textTurn = undefined;
          process.stdout.write(`${eventLine(item)}\n`);
        }
      }
    } finally {
      process.off('SIGINT', onInt);
    }
  });
}
