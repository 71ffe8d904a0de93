import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pingWorkflow } from '../../workflows/index.js';
import { connectClient, startTestWorker } from './helpers.js';

describe('a workflow calling an activity on the real dev server', () => {
  let ctx: Awaited<ReturnType<typeof startTestWorker>>;
  let conn: Awaited<ReturnType<typeof connectClient>>;

  beforeAll(async () => {
    ctx = await startTestWorker();
    conn = await connectClient();
  });
  afterAll(async () => {
    await ctx?.stop();
    await conn?.connection.close();
  });

  it('runs pingWorkflow through the worker and returns the activity result', async () => {
    const result = await conn.client.workflow.execute(pingWorkflow, {
      taskQueue: ctx.taskQueue,
      workflowId: `ping-${Date.now()}`,
      args: ['hello'],
    });
    expect(result).toBe(`pong: hello (task queue ${ctx.taskQueue})`);
  });

  it('records the run in history, where the Web UI and clients can list it', async () => {
    const handle = await conn.client.workflow.start(pingWorkflow, {
      taskQueue: ctx.taskQueue,
      workflowId: `ping-listed-${Date.now()}`,
      args: ['listed'],
    });
    await handle.result();
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map((e) => e.eventType);
    expect(types.length).toBeGreaterThan(5);
  });
});
