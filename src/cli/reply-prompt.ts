/**
 * Asks the person at the terminal for a reply to an interactive stage (a
 * blank line or `/done` ends the stage), or says how to send one.
 */
import { createInterface } from 'node:readline/promises';
import type { Progress } from '../runtime/types.js';

export async function askPerson(p: Progress): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(`\n[${p.stage}] waiting for your reply (a blank line or /done ends the stage)\n> `);
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
