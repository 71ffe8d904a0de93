/** `[notify]` of the user config, notices and signed delivery (docs/reference/cluster-runs.md#notifications). */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { notifyConfig } from '../../src/notify/config.js';
import { deliver, signature } from '../../src/notify/deliver.js';
import {
  asksAPerson,
  DEFAULT_NOTIFY_PATIENCE_SECS,
  deliveryRetry,
  deliveryWorkflowId,
  endNotice,
  questionKey,
  questionOf,
  subscribed,
  TOLD_CARRIED,
  toldCarried,
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
    const pending = {
      kind: 'approval' as const,
      call: 'c-7',
      subject: 'shell: rm -rf build',
      tool: 'shell',
      since: 0,
      deadline: 1,
    };
    const ask = { kind: 'approval' as const, call: 'c-7', subject: 'shell: rm -rf build' };
    expect(questionOf({ asks: [pending], waiting: 'approval', stage: 'main' })).toEqual(ask);
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
    const point = questionOf({
      asks: [
        {
          ...pending,
          kind: 'answer',
          call: 'point-plan-0',
          tool: 'interaction_point',
          subject: 'Approve the plan?',
          form: 'choice',
          options: ['Approve', 'Abort'],
          point: 'plan',
        },
      ],
      waiting: 'checkpoint',
      stage: 'plan',
    })!;
    expect(waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question: point, at })).toMatchObject({
      command: 'lev answer r point-plan-0 --choice <1-2>',
      waiting: {
        kind: 'checkpoint',
        call: 'point-plan-0',
        subject: 'Approve the plan?',
        options: ['Approve', 'Abort'],
      },
    });
    expect(waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question: reply, at })).toMatchObject({
      command: 'lev msg r "…"',
      waiting: { kind: 'reply', subject: 'a reply to the interactive stage "chat"' },
    });
  });
});

describe('a waiting notice for a provider', () => {
  it('names the provider and its error, once per outage, with lev show as the command', () => {
    const provider = {
      provider: 'openai',
      model: 'openai:gpt-4o',
      error: '[provider-server] OpenAI failed on its side (HTTP 503): down.',
      since: 1000,
      giveUpAt: 21_601_000,
    };
    const question = questionOf({ asks: [], waiting: 'provider-unavailable', stage: 'main', provider })!;
    expect(question).toEqual({
      kind: 'provider',
      subject:
        'the provider "openai" (openai:gpt-4o) is unavailable: [provider-server] OpenAI failed on its side (HTTP 503): down.',
      since: 1000,
    });
    // A person's question comes first.
    const ask = { kind: 'approval' as const, call: 'c-7', subject: 'shell: rm -rf build' };
    const pending = { ...ask, tool: 'shell', since: 0, deadline: 1 };
    expect(questionOf({ asks: [pending], stage: 'main', provider })).toEqual(ask);
    const notice = waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question, at: new Date(0) });
    expect(notice).toMatchObject({
      event: 'waiting',
      status: 'running',
      command: 'lev show r',
      waiting: { kind: 'provider', subject: question.subject },
    });
    expect(questionKey(question, 'main', 3)).toBe('provider:1000');
  });
});

describe('a waiting notice for a missing tool worker', () => {
  const away = {
    taskQueue: 'leviath-workdir-w-0123456789ab',
    workdir: '/srv/w',
    since: Date.UTC(2026, 0, 2, 3, 4),
    failsAt: Date.UTC(2026, 0, 2, 4, 4),
  };

  it('tells the run, the workdir and the command that starts its tool worker (docs/reference/cluster-runs.md#notifications)', () => {
    const question = questionOf({ asks: [], waiting: 'tool-worker-missing', stage: 'main', toolWorker: away })!;
    expect(question).toMatchObject({ kind: 'tool-worker-missing', toolWorker: away });
    const notice = waitingNotice({ deliveryId: 'd', runId: 'r', blueprint: 'b', question, at: new Date(0) });
    expect(notice).toMatchObject({
      event: 'waiting',
      runId: 'r',
      workdir: '/srv/w',
      command: 'lev worker --tools --workdir /srv/w',
      waiting: { kind: 'tool-worker-missing' },
    });
    expect(notice.waiting?.subject).toBe(
      'a tool worker for the workdir /srv/w (task queue leviath-workdir-w-0123456789ab); the run fails at 2026-01-02 04:04 UTC without one',
    );
  });

  it('is told once per absence; an ask by its call, a reply by the turn that asked', () => {
    const question = questionOf({ asks: [], stage: 'main', toolWorker: away })!;
    expect(questionKey(question, 'main', 3)).toBe(`tool-worker-missing:${away.since}`);
    expect(questionKey(question, 'main', 9)).toBe(questionKey(question, 'other', 4));
    expect(questionKey({ kind: 'approval', call: 'c-7', subject: 's' }, 'main', 3)).toBe('approval:c-7');
    expect(questionKey({ kind: 'reply', subject: 's' }, 'chat', 3)).toBe('reply:chat:3');
  });

  it('is a person’s to answer for an ask or a reply, not for a missing tool worker or a provider (lev run asks only those)', () => {
    expect(asksAPerson(questionOf({ asks: [], stage: 'main', toolWorker: away })!)).toBe(false);
    expect(asksAPerson({ kind: 'provider', subject: 's', since: 1 })).toBe(false);
    expect(asksAPerson(questionOf({ asks: [], waiting: 'message', stage: 'chat' })!)).toBe(true);
    expect(asksAPerson({ kind: 'checkpoint', call: 'c-1', subject: 's' })).toBe(true);
  });
});

describe('the questions told, carried across continue-as-new', () => {
  it('are the latest ones, in the order they were told', () => {
    expect(toldCarried(new Set(['approval:c-1', 'reply:chat:3']))).toEqual(['approval:c-1', 'reply:chat:3']);
    const many = Array.from({ length: TOLD_CARRIED + 10 }, (_, i) => `approval:c-${i}`);
    expect(toldCarried(many)).toEqual(many.slice(10));
  });
});

describe('delivery', () => {
  it('posts the notice signed per Standard Webhooks and fails on an answer that is not 2xx', async () => {
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
      expect(last.headers['webhook-id']).toBe('d-1');
      const timestamp = Number(last.headers['webhook-timestamp']);
      expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
      const signed = `d-1.${timestamp}.${last.body}`;
      expect(last.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', 'k').update(signed).digest('base64')}`);
      expect(signature('d-1', timestamp, last.body, 'k')).toBe(last.headers['webhook-signature']);
      // A receiver using the Standard Webhooks library verifies it, and refuses it replayed an hour on.
      const receiver = new StandardWebhook(Buffer.from('k').toString('base64'));
      expect(receiver.verify(last.body, last.headers as Record<string, string>)).toEqual(notice);
      const replayed = { ...last.headers, 'webhook-timestamp': String(timestamp - 3600) } as Record<string, string>;
      expect(() => receiver.verify(last.body, replayed)).toThrow(/too old/i);
      // A `whsec_` secret is the scheme's own: its base64 is the key.
      const whsec = `whsec_${Buffer.from('another key').toString('base64')}`;
      await deliver(hook, notice, { HOOK_SECRET: whsec });
      expect(
        new StandardWebhook(whsec).verify(seen.at(-1)!.body, seen.at(-1)!.headers as Record<string, string>),
      ).toEqual(notice);
      expect(await code(() => deliver(hook, notice, {}))).toBe('notify-secret-missing');
    } finally {
      server.close();
    }
  });
});
