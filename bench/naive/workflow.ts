/**
 * The loop the history bench compares against: one flat message list, the
 * whole prompt passed to the inference activity every turn, oldest
 * messages dropped when the window is full. This is what the runtime is
 * designed not to do.
 */
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './activities.js';

const { naiveInfer, naiveTool } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

export async function naiveLoopWorkflow(turns: number, windowChars: number): Promise<number> {
  const messages: string[] = ['Task: read big.txt again and again.'];
  for (let turn = 0; turn < turns; turn++) {
    const prompt = messages.join('\n\n');
    const call = await naiveInfer(prompt, turn);
    messages.push(call);
    messages.push(await naiveTool());
    let size = messages.reduce((a, m) => a + m.length, 0);
    while (size > windowChars && messages.length > 1) size -= messages.splice(1, 1)[0]!.length;
  }
  return messages.length;
}
