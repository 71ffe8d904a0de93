/** `[notify]` of the user config, notices and signed delivery (docs/reference/cluster-runs.md#notifications). */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { notifyConfig } from '../../src/notify/config.js';
import { deliver, signature } from '../../src/notify/deliver.js';
import {
  DEFAULT_NOTIFY_PATIENCE_SECS,
  deliveryRetry,
  deliveryWorkflowId,
  endNotice,
  questionOf,
  subscribed,
  waitingNotice,
} from '../../src/runtime/notice.js';
import { stagePath } from '../../src/worker/run-list.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-notify-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function configFile(toml: string): NodeJS.ProcessEnv {
  const file = join(scratch, `config-${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(file, toml);
  return { LEVIATH_CONFIG: file };
}

async function code(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (err) {
    if (isLevError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a coded error');
}

const notice = endNotice({ deliveryId: 'd-1', event: 'completed', runId: 'r-1', blueprint: 'demo', at: new Date(0) });

describe('[notify] in the user config', () => {
  it('lists webhooks with their secret variable and events, all events by default', () => {
    const env = configFile(`
[[notify.webhooks]]
url = "https://hooks.example.com/a"
secret_env = "HOOK_SECRET"
events = ["failed"]

[[notify.webhooks]]
url = "http://127.0.0.1:9/b"
`);
    const hooks = notifyConfig(env);
    expect(hooks).toEqual([
      { url: 'https://hooks.example.com/a', secretEnv: 'HOOK_SECRET', events: ['failed'] },
      { url: 'http://127.0.0.1:9/b', events: ['completed', 'failed', 'cancelled', 'waiting'] },
    ]);
    expect(subscribed(hooks, 'completed').map((h) => h.url)).toEqual(['http://127.0.0.1:9/b']);
    expect(notifyConfig({ LEVIATH_CONFIG: join(scratch, 'none.toml') })).toEqual([]);
  });

  it('gives the webhooks of the table its patience', () => {
    const env = configFile('[notify]\npatience = "2h"\n[[notify.webhooks]]\nurl = "https://hooks.example.com/a"\n');
    expect(notifyConfig(env)).toEqual([
      {
        url: 'https://hooks.example.com/a',
        events: ['completed', 'failed', 'cancelled', 'waiting'],
        patienceSecs: 7200,
      },
    ]);
  });

  it('refuses a webhook it cannot use, saying what is wrong', async () => {
    expect(await code(() => notifyConfig(configFile('[[notify.webhooks]]\nurl = "ftp://x"\n')))).toBe(
      'notify-config-bad',
    );
    expect(() => notifyConfig(configFile('[[notify.webhooks]]\nurl = "https://x"\nevents = ["done"]\n'))).toThrow(
      /events of https:\/\/x must be some of completed, failed, cancelled, waiting/,
    );
  });
});

describe('how a delivery is retried (docs/reference/cluster-runs.md#deliveries)', () => {
  it("for the webhook's patience, six hours by default, waiting 1 s doubling up to 5 min", () => {
    expect(deliveryRetry({}, {})).toEqual({
      patienceMs: DEFAULT_NOTIFY_PATIENCE_SECS * 1000,
      firstWaitMs: 1000,
      longestWaitMs: 300_000,
    });
    expect(DEFAULT_NOTIFY_PATIENCE_SECS).toBe(21_600);
    expect(deliveryRetry({ patienceSecs: 60 }, { notifyBackoff: { firstWaitMs: 10, longestWaitMs: 20 } })).toEqual({
      patienceMs: 60_000,
      firstWaitMs: 10,
      longestWaitMs: 20,
    });
  });

  it("runs in a workflow beside the run's visits, never taken for one", () => {
    const id = deliveryWorkflowId('demo-1', 'completed', '5f0c1d2e-aaaa-bbbb');
    expect(id).toBe('demo-1.notify-completed-5f0c1d2e');
    expect(stagePath('demo-1', ['demo-1.1.plan', id, 'demo-1.2.build'])).toEqual(['plan', 'build']);
  });
});

describe('a notice', () => {
  it('names the command that answers', () => {
    expect(notice).toMatchObject({ status: 'completed', costUsd: null, command: 'lev result r-1' });
    expect(endNotice({ deliveryId: 'd', event: 'failed', runId: 'r', blueprint: 'b', at: new Date(0) }).command).toBe(
      'lev show r',
    );
  });
});

describe('a waiting notice', () => {
  it('tells the first ask, else the reply, with the command that answers it', () => {
    const ask = { kind: 'approval' as const, call: 'c-7', subject: 'shell: rm -rf build' };
    expect(questionOf({ asks: [ask], waiting: 'approval', stage: 'main' })).toEqual(ask);
    expect(questionOf({ asks: [], stage: 'main' })).toBeUndefined();
    const reply = questionOf({ asks: [], waiting: 'message', stage: 'chat' })!;
    const at = new Date(0);
    expect(waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question: ask, at })).toMatchObject({
      event: 'waiting',
      status: 'running',
      command: 'lev approve r c-7',
      waiting: ask,
    });
    expect(
      waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question: { ...ask, kind: 'answer' }, at }).command,
    ).toBe('lev answer r c-7 "…"');
    expect(waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question: reply, at })).toMatchObject({
      command: 'lev msg r "…"',
      waiting: { kind: 'reply', subject: 'a reply to the interactive stage "chat"' },
    });
  });
});

describe('delivery', () => {
  it('posts the notice signed with HMAC-SHA256 and fails on an answer that is not 2xx', async () => {
    const seen: { headers: Record<string, unknown>; body: string }[] = [];
    let status = 500;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += String(d);
      });
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const hook = { url, secretEnv: 'HOOK_SECRET', events: ['completed' as const] };
      await expect(deliver(hook, notice, { HOOK_SECRET: 'k' })).rejects.toThrow(/answered 500/);
      status = 204;
      expect(await deliver(hook, notice, { HOOK_SECRET: 'k' })).toEqual({ status: 204 });
      const last = seen.at(-1)!;
      expect(JSON.parse(last.body)).toEqual(notice);
      expect(last.headers['x-leviath-delivery']).toBe('d-1');
      expect(last.headers['x-leviath-signature']).toBe(
        `sha256=${createHmac('sha256', 'k').update(last.body).digest('hex')}`,
      );
      expect(signature(last.body, 'k')).toBe(last.headers['x-leviath-signature']);
      expect(await code(() => deliver(hook, notice, {}))).toBe('notify-secret-missing');
    } finally {
      server.close();
    }
  });
});
