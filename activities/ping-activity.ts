import { activityInfo } from '@temporalio/activity';

/** Answers with the message and the worker's identity, proving an activity ran. */
export async function ping(message: string): Promise<string> {
  return `pong: ${message} (task queue ${activityInfo().taskQueue})`;
}
