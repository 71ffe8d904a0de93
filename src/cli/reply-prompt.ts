/**
 * Asks the person at the terminal for a reply to an interactive stage. A
 * blank line (or `/done`) ends the stage.
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
