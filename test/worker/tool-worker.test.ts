import { describe, expect, it } from 'vitest';
import { toolQueueName } from '../../src/runtime/node/tool-queue-name.js';
import { workdirActivities } from '../../src/worker/tool-worker.js';

describe('tool worker', () => {
  it('names its queue for the host and the workdir, the same every time', () => {
    expect(toolQueueName('/srv/work', 'Build Box')).toBe(toolQueueName('/srv/work/', 'Build Box'));
    expect(toolQueueName('/srv/work', 'Build Box')).toMatch(/^leviath-tools-build-box-[0-9a-f]{8}$/);
    expect(toolQueueName('/srv/other', 'Build Box')).not.toBe(toolQueueName('/srv/work', 'Build Box'));
  });

  it('refuses tool calls and seeds for a workdir it does not serve, before touching anything', async () => {
    const acts = workdirActivities('/srv/work', { blobDir: '/nonexistent/blobs', env: {} });
    const call = { id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } };
    await expect(
      acts.runTool({ runId: 'r', blueprintHash: 'h', stage: 'main', call, workdir: '/home/me/work', unattended: true }),
    ).rejects.toMatchObject({ type: 'tool-workdir-elsewhere', nonRetryable: true });
    await expect(
      acts.resolveSeeds({ blueprintHash: 'h', caller: {}, workdir: '/elsewhere', noSeedCommands: true, stage: 'main' }),
    ).rejects.toMatchObject({ type: 'tool-workdir-elsewhere' });
  });
});
