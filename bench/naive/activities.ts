/** Activities of the naive loop: a canned model answer and a 100 KB tool result. */
import { readFileSync } from 'node:fs';

export async function naiveInfer(prompt: string, turn: number): Promise<string> {
  return `Reading pass ${turn + 1} (prompt was ${prompt.length} characters): read_file big.txt`;
}

export async function naiveTool(): Promise<string> {
  return readFileSync(process.env.LEVIATH_BENCH_FILE!, 'utf8');
}
