/**
 * Asks the person at the terminal for a reply to an interactive stage (a
 * blank line or `/done` ends the stage), or says how to send one.
 */
import { createInterface } from 'node:readline/promises';
import type { Progress } from '../runtime/types.js';

export async function askPerson(p: Progress): Promise<string | undefined> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const asked = new AbortController();
  // At the prompt the terminal hands Ctrl-C to readline; pass it on, so it detaches as anywhere else.
  rl.on('SIGINT', () => {
    asked.abort();
    process.kill(process.pid, 'SIGINT');
  });
  try {
    return await rl.question(`\n[${p.stage}] waiting for your reply (a blank line or /done ends the stage)\n> `, {
      signal: asked.signal,
    });
  } catch (err) {
    if (asked.signal.aborted) return undefined;
    throw err;
  } finally {
    rl.close();
  }
}

/** Without a terminal nobody can answer here: say how to send the reply instead. */
export async function signalHint(p: Progress): Promise<undefined> {
  process.stderr.write(
    `[${p.stage}] waits for a reply; send it with: temporal workflow signal --workflow-id ${p.stageWorkflowId ?? '<stage workflow>'} --name message --input '"your reply"' (an empty reply ends the stage)\n`,
  );
  return undefined;
}
