/**
 * `lev fork`: starts a fork of a run and returns at once with its id, as a
 * detached run does (docs/reference/cluster-runs.md#fork); the cluster's
 * workers and the workdir's tool worker serve it.
 */
import { forkTurn } from '../runtime/details.js';
import { forkRun } from '../worker/forks.js';
import { withClient } from './connect.js';
import { missingWorkers } from './detach-action.js';

/** The options of `lev fork` (declared in `commands/fork.ts`). */
export interface ForkFlags {
  address: string;
  namespace: string;
  profile?: string;
  turn: number;
  stage?: string;
  model?: string;
  json?: boolean;
}

export async function forkCommand(runId: string, flags: ForkFlags): Promise<void> {
  await withClient(flags, async (client) => {
    const forked = await forkRun(
      client,
      runId,
      {
        turn: flags.turn,
        ...(flags.stage !== undefined ? { stage: flags.stage } : {}),
        ...(flags.model !== undefined ? { model: flags.model } : {}),
      },
      flags.address,
    );
    process.stdout.write(flags.json ? `${JSON.stringify(forked)}\n` : `${forked.runId}\n`);
    const waits = await missingWorkers(
      client,
      flags.namespace,
      forked.taskQueue,
      forked.toolTaskQueue ?? '',
      forked.workdir,
    );
    for (const line of waits) process.stderr.write(`${line}\n`);
    if (!flags.json)
      process.stderr.write(
        `fork of ${runId} after ${forkTurn({ turn: forked.turn, ...(forked.stage ? { stage: forked.stage } : {}) })} started on ${flags.address}, in stage "${forked.startsIn}"; \`lev attach ${forked.runId}\` follows it, \`lev result ${forked.runId} --wait\` waits for its answer\n`,
      );
  });
}
