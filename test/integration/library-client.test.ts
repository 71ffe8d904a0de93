/**
 * The library's client (docs/library.md#the-client) against the lane's Temporal server: a run
 * started from a loaded blueprint, followed through its progress iterator, steered with each of
 * the operators' updates (their answers, and their refusals with the codes `lev` prints),
 * cancelled, and its result; runs the server does not know and servers that are not there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { LevError } from '../../src/errors.js';
import { connect, type LeviathClient, type LeviathRun } from '../../src/library/client.js';
import { gateReached, openGate } from '../../src/providers/index.js';
import { followRun } from '../../src/worker/run-client.js';
import { temporalAddress } from './helpers.js';
import { scriptedModel, tempDir, useRuntime, writeBlueprint } from './run-helpers.js';

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    if (err instanceof LevError) return err.code;
    throw err;
  }
  throw new Error('expected a coded refusal');
}

/** An agent that checks the time on every turn; its second inference waits at `gate`, so the run is live meanwhile. */
function looping(gate: string): string {
  const turn = { text: 'Checking the time again.', tool_calls: [{ name: 'current_time', arguments: {} }] };
  const model = scriptedModel({ repeat: true, turns: [turn, { ...turn, gate }] });
  return `[agent]\nname = "looping"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 500 }\n[stages.main]\nmodel = "${model}"\navailable_tools = ["current_time"]\nmax_iterations = 200\n`;
}

describe('the library client', () => {
  const env = useRuntime();
  let client: LeviathClient;
  let run: LeviathRun;
  const gate = `library-${process.pid}`;

  beforeAll(async () => {
    client = await connect({ address: temporalAddress() });
    run = await client.start(writeBlueprint(looping(gate)), {
      task: 'Keep checking.',
      workdir: tempDir('library-run'),
      taskQueue: env.rt.taskQueue,
    });
    await gateReached(gate);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('follows the run: its progress iterator yields the turns so far, and leaving it leaves the run going', async () => {
    const seen = [];
    for await (const p of run.progress({ intervalMs: 50 })) {
      seen.push(p);
      break;
    }
    expect(seen[0]).toMatchObject({ runId: run.runId, stage: 'main' });
    expect(seen[0]?.inferences).toBeGreaterThanOrEqual(1);
    expect((await run.handle.describe()).status.name).toBe('RUNNING');
    expect((await run.status())?.stage).toBe('main');
  });

  it('stops following when asked, and says so with the reason given', async () => {
    const stop = new AbortController();
    const following = followRun(client.temporal, run.handle, () => stop.abort(new Error('enough')), {
      intervalMs: 50,
      signal: stop.signal,
    });
    await expect(following).rejects.toThrow('enough');
  });

  it('sends the operators updates through the run and gets their answers', async () => {
    expect(await run.message('Look at the clock once more.')).toMatchObject({ stage: 'main' });
    expect(await run.pause()).toMatchObject({ paused: true });
    expect(await refusal(run.pause())).toBe('already-paused');
    expect(await run.resume()).toMatchObject({ paused: false });
    expect(await refusal(run.resume())).toBe('not-paused');
  });

  it('refuses what the run refuses, with its code', async () => {
    expect(await refusal(run.approve())).toBe('nothing-pending');
    expect(await refusal(run.deny({ note: 'no' }))).toBe('nothing-pending');
    expect(await refusal(run.answer('yes'))).toBe('nothing-pending');
    expect(await refusal(run.message(' '))).toBe('text-empty');
  });

  it('cancels the run, which then refuses updates and reports itself cancelled', async () => {
    expect(await run.cancel({ wait: true })).toEqual({ status: 'CANCELLED' });
    openGate(gate);
    expect(await refusal(run.message('too late'))).toBe('run-finished');
    expect((await run.result()).status).toBe('cancelled');
  });

  it('refuses a start it cannot make before anything reaches the server, with the codes lev run gives', async () => {
    const workdir = tempDir('library-refused');
    const bp = writeBlueprint(looping(`${gate}-never`));
    expect(await refusal(client.start(bp, { workdir, yolo: true, attended: true }))).toBe('bad-input');
    expect(await refusal(client.start(bp, { workdir: join(workdir, 'missing') }))).toBe('workdir-missing');
    const broken = tempDir('library-broken');
    writeFileSync(join(broken, 'agent.toml'), '[agent]\nname = "broken"\n[stages.main]\nmax_iterations = "many"\n');
    const err = await client.start(broken, { workdir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LevError);
    expect((err as LevError).code).toBe('blueprint-invalid');
    expect((err as LevError).diagnostics.length).toBeGreaterThan(0);
  });

  it('says run-not-found for a run the server does not know', async () => {
    const ghost = client.run('no-such-run');
    expect(await refusal(ghost.result())).toBe('run-not-found');
    expect(await refusal(ghost.message('hello'))).toBe('run-not-found');
    expect(await refusal(ghost.progress().next())).toBe('run-not-found');
  });

  it('says server-unreachable when nothing listens at the address', async () => {
    expect(await refusal(connect({ address: `127.0.0.1:${await freePort()}` }))).toBe('server-unreachable');
  });

  it('says namespace-not-found for a namespace the server lacks', async () => {
    expect(await refusal(connect({ address: temporalAddress(), namespace: 'no-such-namespace' }))).toBe(
      'namespace-not-found',
    );
  });
});
