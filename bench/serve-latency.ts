/**
 * `npm run bench -- serve-latency [--tokens N] [--gap MS] [--runs R]`: how long
 * a token of the model's text takes to reach a browser through `lev serve`
 * (goal: a median of at most 300 ms, docs/benchmarks.md#token-to-browser-latency).
 *
 * A local OpenAI-compatible server streams each reply as `--tokens` chunks,
 * one every `--gap` ms, and notes when it wrote each one. A `lev worker`
 * process serves the run, `lev serve` serves its events, and the live page
 * in Debian's Chromium shows them: each token's latency is from the moment
 * the model server wrote it to the moment the page's text first held it
 * (one machine, one clock). The same tokens are also timed as a plain SSE
 * client reads them, to tell the page's share from the stream's.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { launchChromium } from '../test/integration/browser.js';
import { startLev } from '../test/integration/lev-process.js';
import { numberArg, printRow, startBenchServer, startWorkerProcess } from './kit.js';

interface Streamed {
  token: string;
  sentAt: number;
}

/** An OpenAI-compatible model that streams `tokens` chunks `gapMs` apart and notes when each left. */
function startStreamingModel(tokens: number, gapMs: number) {
  const sent: Streamed[] = [];
  let replies = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const reply = replies++;
      const streaming = (JSON.parse(raw) as { stream?: boolean }).stream === true;
      const words = Array.from({ length: tokens }, (_, k) => `r${reply}t${k} `);
      const usage = { prompt_tokens: 200, completion_tokens: tokens, total_tokens: 200 + tokens };
      if (!streaming) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `c${reply}`,
            object: 'chat.completion',
            created: 1,
            model: 'gpt-4o',
            choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.socket?.setNoDelay(true);
      const chunk = (delta: object, finish: string | null, extra = {}) =>
        `data: ${JSON.stringify({ id: `c${reply}`, object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
      let k = 0;
      const next = () => {
        if (k < words.length) {
          const token = words[k++] as string;
          res.write(chunk(k === 1 ? { role: 'assistant', content: token } : { content: token }, null));
          sent.push({ token, sentAt: Date.now() });
          setTimeout(next, gapMs);
        } else {
          res.write(chunk({}, 'stop', { usage }));
          res.end('data: [DONE]\n\n');
        }
      };
      next();
    });
  });
  return new Promise<{ baseURL: string; sent: Streamed[]; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        sent,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** When a plain SSE client first saw each token. */
async function readTokens(url: string, seen: Map<string, number>, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { signal });
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const now = Date.now();
      text += value;
      for (const m of value.matchAll(/r\d+t\d+ /g)) if (!seen.has(m[0])) seen.set(m[0], now);
      if (text.includes('event: end')) return;
    }
  } catch {
    // Aborted at the end of the bench.
  }
}

export default async function run(args: string[]): Promise<void> {
  const opt = (flag: string, fallback: number) => {
    const i = args.indexOf(flag);
    return i < 0 ? fallback : numberArg(args, i + 1, flag);
  };
  const tokens = opt('--tokens', 40);
  const gapMs = opt('--gap', 50);
  const runs = opt('--runs', 3);
  const bench = await startBenchServer('serve-latency');
  const model = await startStreamingModel(tokens, gapMs);
  const taskQueue = `serve-latency-${process.pid}`;
  const env = { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-bench' };
  const worker = await startWorkerProcess(bench, { taskQueue, env });
  const serve = startLev(['serve', '--port', '0', '--address', bench.server.address, '--task-queue', taskQueue], {
    ...env,
    LEVIATH_HOME: join(bench.tmp, 'home'),
    LEVIATH_SERVE_TOKEN: '',
  });
  const base = (await serve.waitFor(/lev serve at (http:\/\/\S+) /))[1] as string;
  const browser = await launchChromium();
  const bp = join(bench.tmp, 'agent.toml');
  writeFileSync(
    bp,
    `[agent]\nname = "latency"\nmodel = "openai:gpt-4o"\n[context.regions]\ntask = { kind = "pinned", max_tokens = 200 }\n[stages.main]\navailable_tools = []\n`,
  );
  const pageLatencies: number[] = [];
  const streamLatencies: number[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const res = await fetch(`${base}/api/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ blueprint: bp, task: 'say something', workdir: bench.tmp }),
      });
      const { runId } = (await res.json()) as { runId: string };
      const stop = new AbortController();
      const streamSeen = new Map<string, number>();
      const reading = readTokens(`${base}/api/runs/${encodeURIComponent(runId)}/events`, streamSeen, stop.signal);
      const page = await browser.newPage();
      await page.goto(`${base}/runs/${encodeURIComponent(runId)}`);
      await page.evaluate(`(() => {
        const seen = (window.seenAt = {});
        const live = document.getElementById('live-text');
        new MutationObserver(() => {
          const now = Date.now();
          for (const m of live.textContent.matchAll(/r\\d+t\\d+ /g)) seen[m[0]] ??= now;
        }).observe(live, { childList: true, characterData: true, subtree: true });
      })()`);
      await page.locator('#run-summary', { hasText: /^completed/ }).waitFor({ timeout: 120_000 });
      const pageSeen = (await page.evaluate('window.seenAt')) as Record<string, number>;
      stop.abort();
      await reading;
      await page.close();
      const prefix = `r${r}t`;
      for (const s of model.sent.filter((x) => x.token.startsWith(prefix))) {
        const atPage = pageSeen[s.token];
        if (atPage !== undefined) pageLatencies.push(atPage - s.sentAt);
        const atStream = streamSeen.get(s.token);
        if (atStream !== undefined) streamLatencies.push(atStream - s.sentAt);
      }
    }
  } finally {
    await browser.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    await worker.stop();
    await model.close();
    await bench.close();
  }
  const sent = model.sent.length;
  for (const [where, list] of [
    ['browser (the page)', pageLatencies],
    ['SSE client', streamLatencies],
  ] as const) {
    const sorted = [...list].sort((a, b) => a - b);
    printRow({
      where,
      tokens: `${list.length}/${sent}`,
      'median ms': quantile(sorted, 0.5),
      'p90 ms': quantile(sorted, 0.9),
      'max ms': sorted.at(-1) ?? Number.NaN,
    });
  }
}
