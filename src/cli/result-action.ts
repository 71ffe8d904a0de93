/**
 * What `lev result` does: a run that is still going is a coded error, or with
 * `--wait` waited for (through continue-as-new too); an unknown one is a coded
 * error; a failed run reports the partial result its failure carries.
 */
import type { Client } from '@temporalio/client';
import { openBlobStore, parseBlobSpec } from '../blobs/index.js';
import { LevError } from '../errors.js';
import { defaultRuntimeConfig } from '../runtime/node/run-store.js';
import { undeliveredText } from '../runtime/texts.js';
import type { RunResult } from '../runtime/types.js';
import { artifactLines } from '../tools/artifacts.js';
import { runOutcome } from '../worker/run-client.js';
import { describeRun } from '../worker/runs.js';
import { withClient } from './connect.js';

/** The options of `lev result` (declared in `commands/result.ts`). */
export interface ResultFlags {
  address: string;
  namespace: string;
  json?: boolean;
  /** Wait for a run still going to end instead of refusing it. */
  wait?: boolean;
}

/** What `lev result --json` prints and `GET /api/runs/{id}/result` answers. */
export interface ResultView {
  runId: string;
  status: RunResult['status'];
  stages: RunResult['stages'];
  output: { format: string; text: string };
  /** The files the answer names, relative to the run's workdir (docs/reference/stages.md#artifacts); absent when none. */
  artifacts?: string[];
  usage: RunResult['usage'];
  cost?: RunResult['cost'];
  error?: string;
  undeliveredMessages?: number;
}

/** The run's result; a run still going is `run-not-finished`, unless `wait` waits for it. */
export async function readResult(
  client: Client,
  runId: string,
  opts: { address: string; wait?: boolean; say: (line: string) => void },
): Promise<ResultView> {
  const handle = client.workflow.getHandle(runId);
  const running = (await describeRun(client, runId, opts.address)).status.name === 'RUNNING';
  if (running && !opts.wait)
    throw new LevError(
      'run-not-finished',
      `Run "${runId}" is still running; ask again when it has finished, or wait for it with \`lev result ${runId} --wait\`.`,
    );
  const result = await runOutcome(handle);
  const undelivered = result.undeliveredMessages;
  return {
    runId: result.runId,
    status: result.status,
    stages: result.stages,
    output: { format: result.outputFormat ?? 'text', text: await answerText(result, opts.say) },
    ...(result.artifacts?.length ? { artifacts: result.artifacts } : {}),
    usage: result.usage,
    ...(result.cost ? { cost: result.cost } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...(undelivered ? { undeliveredMessages: undelivered } : {}),
  };
}

export async function printRunResult(runId: string, flags: ResultFlags): Promise<void> {
  await withClient(flags, async (client) => {
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const result = await readResult(client, runId, { address: flags.address, wait: flags.wait === true, say });
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      if (result.status === 'cancelled') say('run cancelled');
      else if (result.status !== 'completed') say(`run failed: ${result.error ?? 'unknown error'}`);
      if (result.undeliveredMessages) say(undeliveredText(result.undeliveredMessages));
      const text = result.output.text;
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      // On stderr, so stdout stays the answer alone (docs/reference/stages.md#artifacts).
      for (const line of artifactLines(result.artifacts)) say(line);
    }
    if (result.status !== 'completed') process.exitCode = 1;
  });
}

/**
 * The run's whole answer: a sub-agent's large answer travels as a blob
 * reference (docs/reference/sub-agents.md#what-a-worker-hands-back), read
 * back here from the blob store this machine is configured with; when that
 * store does not hold it, the first characters are shown and stderr says why.
 */
async function answerText(result: RunResult, say: (line: string) => void): Promise<string> {
  const ref = result.outputRef;
  if (!ref) return result.output;
  const config = defaultRuntimeConfig(process.env);
  const store = openBlobStore(parseBlobSpec(config.blobs, config.blobDir), 1);
  try {
    return await store.get(ref.hash);
  } catch (err) {
    say(
      `the whole answer (${ref.bytes} bytes, blob ${ref.hash}) is not in this machine's blob store (${err instanceof Error ? err.message : String(err)}); its first characters follow`,
    );
    return result.output;
  } finally {
    if ('close' in store && typeof store.close === 'function') await store.close();
  }
}
