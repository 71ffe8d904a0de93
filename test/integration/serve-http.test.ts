/**
 * `lev serve` end to end (docs/reference/http-api.md): the real command in a
 * child process against the lane's dev server, a scripted run started over
 * HTTP and served by a worker and the workdir's tool worker in this process;
 * listed, shown, its gated call approved, its events read as Server-Sent
 * Events and read again from an offset, its result, a fork cancelled, and
 * the refusals with the CLI's codes. Listening beyond loopback without a
 * token is refused at start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolWorker } from '../../src/worker/tool-worker.js';
import { connectClient, temporalAddress } from './helpers.js';
import { type LevProcess, startLev } from './lev-process.js';
import { startRuntime, type TestRuntime, tempDir } from './run-helpers.js';

const TOKEN = 'serve-test-token';

/** A blueprint whose model writes a file under an `ask` permission, then answers. */
function gatedBlueprint(name: string): string {
  const dir = tempDir('serve-bp');
  writeFileSync(
    join(dir, 'script.toml'),
    `[[turns]]
text = "Noting what I saw."
[[turns.tool_calls]]
name = "context_append"
arguments = { region = "notes", content = "the logs show a timeout at 02:14" }

[[turns]]
text = "Writing the report."
[[turns.tool_calls]]
name = "write_file"
arguments = { path = "report.md", content = "# Report\\nA timeout at 02:14." }

[[turns]]
text = "The report is written: a timeout at 02:14."
`,
  );
  writeFileSync(
    join(dir, 'agent.toml'),
    `[agent]
name = "${name}"
model = "scripted:${join(dir, 'script.toml')}"
[context.regions]
task = { kind = "pinned", max_tokens = 200 }
notes = { kind = "temporary", max_tokens = 400 }
[stages.main]
available_tools = ["context_append", "write_file"]
[tool_permissions]
write_file = "ask"
`,
  );
  return dir;
}

/** Reads an event stream until it ends (or `until` says enough), with each frame's id, event and data. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  until: (frames: Frame[]) => boolean = () => false,
): Promise<Frame[]> {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames: Frame[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return frames;
    buffer += value;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, cut).split('\n');
      buffer = buffer.slice(cut + 2);
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      const data = field('data');
      if (data === undefined) continue;
      const id = field('id');
      frames.push({
        id: id === undefined ? undefined : Number(id),
        event: field('event') ?? '',
        data: JSON.parse(data),
      });
      if (until(frames)) {
        await reader.cancel();
        return frames;
      }
    }
  }
}

interface Frame {
  id: number | undefined;
  event: string;
  data: { kind?: string; offset?: number; [key: string]: unknown };
}

describe('lev serve', () => {
  const stops: (() => Promise<void>)[] = [];
  let serve: LevProcess;
  let base = '';
  let rt: TestRuntime;
  const workdir = tempDir('serve-work');
  const auth = { authorization: `Bearer ${TOKEN}` };
  const env = () => ({ TEMPORAL_ADDRESS: temporalAddress(), LEVIATH_HOME: tempDir('serve-home') });

  const api = async (
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...auth, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { code?: string } };
  };

  beforeAll(async () => {
    const conn = await connectClient();
    stops.push(() => conn.connection.close());
    rt = await startRuntime(conn.client);
    stops.push(() => rt.stop());
    const tools = await createToolWorker({
      address: temporalAddress(),
      workdir,
      runtime: { blobDir: rt.blobDir, env: process.env },
    });
    const toolsRunning = tools.worker.run();
    stops.push(async () => {
      tools.worker.shutdown();
      await toolsRunning;
      await tools.connection.close();
    });
    serve = startLev(['serve', '--port', '0', '--token', TOKEN, '--task-queue', rt.taskQueue], env());
    stops.push(async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
    base = (await serve.waitFor(/lev serve at (http:\/\/\S+) /))[1] as string;
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('refuses to listen beyond loopback without a token, or on a port in use', async () => {
    const open = startLev(['serve', '--host', '0.0.0.0', '--port', '0'], { ...env(), LEVIATH_SERVE_TOKEN: '' });
    expect(await open.exited).toBe(1);
    expect(open.stderr()).toContain('error [serve-token-required]');
    // The port the running one holds is refused too.
    const twice = startLev(['serve', '--port', new URL(base).port], env());
    expect(await twice.exited).toBe(1);
    expect(twice.stderr()).toContain('error [serve-port-busy]');
  });

  it('answers requests without the token with serve-unauthorized, and serves /openapi.json to anyone', async () => {
    const refused = await api('/api/runs', { headers: { authorization: 'Bearer wrong' } });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('serve-unauthorized');
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string; paths: object };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/runs/{runId}/events');
  });

  it('starts a run, lists and shows it, approves its gated call, streams its events and gives its result', async () => {
    const name = `served-${process.pid}`;
    const started = await api('/api/runs', {
      method: 'POST',
      body: { blueprint: gatedBlueprint(name), task: 'what happened at night?', workdir, attended: true },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.runId as string;
    expect(runId).toMatch(new RegExp(`^${name}-`));
    // Both of its queues are polled: nothing to warn about.
    expect(started.body.warnings).toEqual([]);

    const listed = await api(`/api/runs?blueprint=${name}`);
    expect(listed.status).toBe(200);
    expect((listed.body as unknown as { runId: string }[]).map((r) => r.runId)).toEqual([runId]);

    // The run waits for a person once the model asks to write: the view names the call.
    let call: string | undefined;
    for (let i = 0; i < 200 && !call; i++) {
      const shown = await api(`/api/runs/${encodeURIComponent(runId)}`);
      expect(shown.status).toBe(200);
      call = (shown.body.asks as { call: string; kind: string }[]).find((a) => a.kind === 'approval')?.call;
      if (!call) await new Promise((r) => setTimeout(r, 100));
    }
    expect(call).toBeDefined();
    const early = await api(`/api/runs/${runId}/result`);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('run-not-finished');

    const approved = await api(`/api/runs/${runId}/approve`, { method: 'POST', body: { call } });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ call, tool: 'write_file', decision: 'approved' });

    const result = await api(`/api/runs/${runId}/result?wait=true`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ runId, status: 'completed' });
    expect((result.body.output as { text: string }).text).toContain('a timeout at 02:14');

    // The whole stream: durable events with consecutive offsets from 0, ending with the run's end.
    const all = await readEvents(`${base}/api/runs/${runId}/events?tokens=false`, auth);
    const durable = all.filter((f) => f.event === 'event');
    expect(durable.map((f) => f.id)).toEqual(durable.map((_, i) => i));
    expect(durable.map((f) => f.data.offset)).toEqual(durable.map((f) => f.id));
    expect(durable.map((f) => f.data.kind)).toContain('turn-ended');
    expect(durable.at(-1)?.data.kind).toBe('run-ended');
    expect(all.at(-1)?.event).toBe('end');
    // Resumed after an id, as a browser reconnects, and from an offset.
    const k = Math.floor(durable.length / 2);
    const resumed = await readEvents(`${base}/api/runs/${runId}/events?tokens=false`, {
      ...auth,
      'last-event-id': String(k),
    });
    expect(resumed.filter((f) => f.event === 'event').map((f) => f.id)).toEqual(durable.slice(k + 1).map((f) => f.id));
    const fromK = await readEvents(`${base}/api/runs/${runId}/events?from=${k}&tokens=false`, auth);
    expect(fromK.filter((f) => f.event === 'event').map((f) => f.id)).toEqual(durable.slice(k).map((f) => f.id));

    // Updates to an ended run are refused as the CLI refuses them.
    const late = await api(`/api/runs/${runId}/pause`, { method: 'POST' });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('run-finished');

    // A fork starts on the run's queue, and is cancelled over HTTP.
    const fork = await api(`/api/runs/${runId}/fork`, { method: 'POST', body: { turn: 1 } });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    expect(fork.body).toMatchObject({ forkOf: runId, turn: 1, taskQueue: rt.taskQueue });
    const cancelled = await api(`/api/runs/${fork.body.runId}/cancel`, { method: 'POST', body: { wait: true } });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ requested: true });
    expect(['CANCELLED', 'COMPLETED']).toContain(cancelled.body.status);
  });

  it('answers bad requests with the codes the CLI prints', async () => {
    const cases: [string, { method?: string; body?: unknown }, number, string][] = [
      ['/api/runs/no-such-run', {}, 404, 'run-not-found'],
      ['/api/runs/no-such-run/events', {}, 404, 'run-not-found'],
      ['/api/runs?status=sleepy', {}, 400, 'unknown-status'],
      ['/api/runs?colour=red', {}, 400, 'serve-bad-request'],
      ['/api/runs', { method: 'POST', body: { task: 'no blueprint' } }, 400, 'serve-bad-request'],
      ['/api/runs', { method: 'POST', body: { blueprint: 'no-such-blueprint' } }, 404, 'blueprint-ref-unknown'],
      ['/api/runs', { method: 'POST', body: { blueprint: tempDir('empty-bp') } }, 422, 'blueprint-invalid'],
      ['/api/runs/x/events?from=-3', {}, 400, 'serve-bad-request'],
      ['/api/runs/no-such-run/approve', { method: 'POST', body: { call: 'c1' } }, 404, 'run-not-found'],
      ['/api/nothing', {}, 404, 'serve-not-found'],
      ['/page/secrets.txt', {}, 404, 'serve-not-found'],
    ];
    for (const [path, init, status, code] of cases) {
      const got = await api(path, init);
      expect([path, got.status, got.body.code]).toEqual([path, status, code]);
      expect(typeof got.body.message).toBe('string');
    }
    // A form post, which a page of another site could send without asking, is not JSON.
    const form = await fetch(`${base}/api/runs/x/pause`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(400);
    expect(((await form.json()) as { code: string }).code).toBe('serve-bad-request');
  });
});
