/**
 * A workdir's tool queue is named by its identity, kept in the workdir
 * (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process): the
 * same files reached at another path name the same queue, and a tool worker
 * on that queue runs a call at its own path of the files.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/runtime/node/run-store.js';
import type { ToolResultOut } from '../../src/runtime/node/tool-call.js';
import { hostToolQueueName, servesHere, toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { IDENTITY_FILE, readWorkdirIdentity, workdirIdentity } from '../../src/runtime/node/workdir-identity.js';
import { isWorkdirQueue, toolWorkerCommand, workdirQueue } from '../../src/runtime/tool-queue.js';
import { workdirActivities } from '../../src/worker/tool-worker.js';
import { loadToml } from '../blueprint/helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-tool-worker-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function workdir(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("a workdir's tool queue", () => {
  it('is named by an identity written into the workdir once, the same every time', () => {
    const dir = workdir('My Project');
    const queue = toolQueueName(dir);
    expect(queue).toMatch(/^leviath-workdir-my-project-[0-9a-f]{12}$/);
    expect(isWorkdirQueue(queue)).toBe(true);
    expect(readFileSync(join(dir, IDENTITY_FILE), 'utf8').trim()).toBe(queue.slice('leviath-workdir-'.length));
    // A git checkout does not see the folder.
    expect(readFileSync(join(dir, '.leviath', '.gitignore'), 'utf8')).toBe('*\n');
    expect(toolQueueName(`${dir}/`)).toBe(queue);
    expect(toolQueueName(workdir('other'))).not.toBe(queue);
  });

  it('is the same through another path to the same files, on any host', () => {
    const dir = workdir('shared');
    const elsewhere = join(scratch, 'mounted-elsewhere');
    symlinkSync(dir, elsewhere);
    expect(toolQueueName(elsewhere, 'replacement-pod')).toBe(toolQueueName(dir, 'first-pod'));
  });

  it('keeps an identity another process wrote first', () => {
    const dir = workdir('raced');
    mkdirSync(join(dir, '.leviath'));
    writeFileSync(join(dir, IDENTITY_FILE), 'raced-0123456789ab\n');
    expect(workdirIdentity(dir)).toBe('raced-0123456789ab');
    expect(toolQueueName(dir)).toBe(workdirQueue('raced-0123456789ab'));
  });

  it('writes nothing for a workdir that is not here, and falls back to the host-named queue', () => {
    const missing = join(scratch, 'not-here');
    expect(workdirIdentity(missing)).toBeUndefined();
    expect(existsSync(missing)).toBe(false);
    expect(toolQueueName(missing, 'Build Box')).toBe(hostToolQueueName(missing, 'Build Box'));
  });

  it('refuses an identity file that holds something else, saying what to do', () => {
    const dir = workdir('garbled');
    mkdirSync(join(dir, '.leviath'));
    writeFileSync(join(dir, IDENTITY_FILE), 'not an identity\n');
    expect(() => readWorkdirIdentity(dir)).toThrow(expect.objectContaining({ code: 'workdir-id-bad' }));
    expect(() => toolQueueName(dir)).toThrow(/delete it/);
  });

  it('names the host-named queue of earlier versions as before', () => {
    expect(hostToolQueueName('/srv/work', 'Build Box')).toBe(hostToolQueueName('/srv/work/', 'Build Box'));
    expect(hostToolQueueName('/srv/work', 'Build Box')).toMatch(/^leviath-tools-build-box-[0-9a-f]{8}$/);
    expect(hostToolQueueName('/srv/other', 'Build Box')).not.toBe(hostToolQueueName('/srv/work', 'Build Box'));
    expect(isWorkdirQueue(hostToolQueueName('/srv/work', 'Build Box'))).toBe(false);
  });

  it("is served here when it is the workdir's identity queue or this host's queue for it", () => {
    const dir = workdir('attachable');
    const queue = toolQueueName(dir);
    expect(servesHere(dir, queue)).toBe(true);
    expect(servesHere(dir, hostToolQueueName(dir))).toBe(true);
    expect(servesHere(dir, 'leviath-tools-workspace')).toBe(false);
    expect(servesHere(workdir('no-identity'), queue)).toBe(false);
  });

  it('is served by a command that names the queue only when it is not the identity queue', () => {
    expect(toolWorkerCommand('/srv/w', workdirQueue('w-0123456789ab'))).toBe('lev worker --tools --workdir /srv/w');
    expect(toolWorkerCommand('/srv/w', 'leviath-tools-box-1234abcd')).toBe(
      'lev worker --tools --workdir /srv/w --task-queue leviath-tools-box-1234abcd',
    );
  });
});

describe('the tool worker', () => {
  const call = { id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } };
  const toolInput = (workdir: string) => ({
    runId: 'r',
    blueprintHash: 'h',
    stage: 'main',
    call,
    workdir,
    unattended: true,
  });
  const seedInput = (workdir: string) => ({
    blueprintHash: 'h',
    caller: {},
    workdir,
    noSeedCommands: true,
    stage: 'main',
  });
  const runtime = { blobDir: join(scratch, 'blobs'), env: {} };

  it('refuses tool calls and seeds for a workdir it does not serve, before touching anything', async () => {
    const acts = workdirActivities('/srv/work', { blobDir: '/nonexistent/blobs', env: {} });
    await expect(acts.runTool(toolInput('/home/me/work'))).rejects.toMatchObject({
      type: 'tool-workdir-elsewhere',
      nonRetryable: true,
    });
    await expect(acts.resolveSeeds(seedInput('/elsewhere'))).rejects.toMatchObject({ type: 'tool-workdir-elsewhere' });
  });

  it("on the identity's queue, takes a call naming the files by another path and runs it at its own path", async () => {
    const dir = workdir('served');
    writeFileSync(join(dir, 'a.txt'), 'the served files\n');
    const queue = toolQueueName(dir);
    const bp = loadToml('[agent]\nname = "reader"\n[stages.main]\navailable_tools = ["read_file"]\n').blueprint!;
    const blueprintHash = await new RunStore(runtime).putBlueprint(bp);
    const acts = workdirActivities(dir, runtime, queue);
    const read = (workdir: string): Promise<ToolResultOut> =>
      new MockActivityEnvironment().run(acts.runTool, {
        ...toolInput(workdir),
        blueprintHash,
      }) as Promise<ToolResultOut>;
    const answer = await read('/mnt/where-the-run-saw-it');
    expect(answer).toMatchObject({ isError: false });
    expect(JSON.stringify(answer.content)).toContain('the served files');
    // A copy keeps the identity, so it is the same workdir to the queue (docs say to delete it in a copy).
    const copy = join(scratch, 'served-copy');
    cpSync(dir, copy, { recursive: true });
    expect(JSON.stringify((await read(copy)).content)).toContain('the served files');
    // A path that holds another workdir here is refused, whatever the queue.
    const other = workdir('other-files');
    toolQueueName(other);
    await expect(read(other)).rejects.toMatchObject({ type: 'tool-workdir-elsewhere' });
    // On a queue a person named, the paths must match, as before.
    const named = workdirActivities(dir, runtime, 'leviath-tools-workspace');
    await expect(named.runTool(toolInput('/mnt/where-the-run-saw-it'))).rejects.toMatchObject({
      type: 'tool-workdir-elsewhere',
    });
  });
});
