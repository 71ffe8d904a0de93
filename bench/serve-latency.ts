/**
 * `npm run bench -- serve-latency [turns] [latency-ms]`: how long a piece of
 * the model's text takes to reach a browser through `lev serve` (goal: a
 * median of at most 300 ms, docs/benchmarks.md#token-to-browser-latency).
 *
 * A scripted run on a dev server of its own, served by a worker in this
 * process; `lev serve` in its own process; the run's live page in Debian's
 * Chromium. The scripted provider streams each reply in `STREAM_PIECES`
 * pieces over its latency, and logs when the call ended, so each piece is
 * handed to the activity at a known time (the call's end less the pieces'
 * shares of the latency after it, as `bench/stream.ts` reckons it). The page
 * notes when its text first holds each piece; a plain SSE client of
 * `/api/runs/{id}/events` does the same, to tell the page's share from the
 * stream's. One machine, one clock. Timings printed, never asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STREAM_PIECES } from '../src/providers/scripted.js';
import { createWorker } from '../src/worker/create-worker.js';
import { launchChromium } from '../test/integration/browser.js';
import { startLev } from '../test/integration/lev-process.js';
import { numberArg, printRow, startBenchServer } from './kit.js';
import { pieceEnds, pieceTimes, quantile } from './piece-times.js';

const REPLY = 'Reading the next file now, then I will compare it with what the plan region says. '.repeat(3);

interface Arrival {
  turn: number;
  /** The reply's characters held so far. */
  end: number;
  at: number;
}

/** When a plain SSE client saw how much of each turn's text. */
async function readText(url: string, arrivals: Arrival[]): Promise<void> {
  const res = await fetch(url);
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    const now = Date.now();
    buffer += value;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (frame.includes('event: end')) return;
      const data = frame.split('\n').find((l) => l.startsWith('data: '));
      if (!frame.includes('event: text') || !data) continue;
      const d = JSON.parse(data.slice(6)) as { turn: number; at: number; text: string };
      arrivals.push({ turn: d.turn, end: d.at + d.text.length, at: now });
    }
  }
}

export default async function run(args: string[]): Promise<void> {
  const turns = args[0] !== undefined ? numberArg(args, 0, 'turns') : 10;
  const latency = args[1] !== undefined ? numberArg(args, 1, 'latency-ms') : 2000;
  const bench = await startBenchServer('serve-latency');
  const { tmp, server } = bench;
  const workdir = join(tmp, 'work');
  mkdirSync(workdir);
  const log = join(tmp, 'scripted.jsonl');
  process.env.LEVIATH_SCRIPTED_LOG = log;
  const taskQueue = 'bench-serve';
  const worker = await createWorker({
    address: server.address,
    taskQueue,
    runtime: { blobDir: join(tmp, 'blobs'), env: process.env },
  });
  const running = worker.worker.run();
  const script = join(tmp, 'script.toml');
  writeFileSync(
    script,
    `latency_ms = ${latency}\n${`[[turns]]\ntext = "${REPLY}"\n[[turns.tool_calls]]\nname = "current_time"\narguments = {}\n\n`.repeat(turns)}[[turns]]\ntext = "Done."\n`,
  );
  const bp = join(tmp, 'agent.toml');
  writeFileSync(
    bp,
    `[agent]\nname = "serve-latency"\n[stages.main]\nmodel = "scripted:${script}"\navailable_tools = ["current_time"]\nmax_iterations = 10000\n`,
  );
  const serve = startLev(['serve', '--port', '0', '--address', server.address, '--task-queue', taskQueue], {
    LEVIATH_HOME: join(tmp, 'home'),
    LEVIATH_SERVE_TOKEN: '',
  });
  const base = (await serve.waitFor(/lev serve at (http:\/\/\S+) /))[1] as string;
  const browser = await launchChromium();
  const page = await browser.newPage();
  const pageLatencies: number[] = [];
  const sseLatencies: number[] = [];
  let sent = 0;
  try {
    // The page first, so it follows the run from its start.
    await page.goto(`${base}/`);
    const res = await fetch(`${base}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // This process's worker serves every activity on its queue, the tools and seeds included.
      body: JSON.stringify({ blueprint: bp, task: 'Work through the files.', workdir, toolQueue: taskQueue }),
    });
    const { runId } = (await res.json()) as { runId: string };
    const sseArrivals: Arrival[] = [];
    const reading = readText(`${base}/api/runs/${encodeURIComponent(runId)}/events?from=0`, sseArrivals);
    await page.goto(`${base}/runs/${encodeURIComponent(runId)}`);
    await page.evaluate(`(() => {
      const seen = (window.arrivals = []);
      const live = document.getElementById('live-text');
      const label = document.getElementById('text-turn');
      new MutationObserver(() => {
        const turn = Number(/turn (\\d+)/.exec(label.textContent)?.[1] ?? -1);
        seen.push({ turn, end: live.textContent.length, at: Date.now() });
      }).observe(live, { childList: true, characterData: true, subtree: true });
    })()`);
    await page.locator('#run-summary', { hasText: /^completed/ }).waitFor({ timeout: (turns + 2) * (latency + 5000) });
    await reading;
    const pageArrivals = (await page.evaluate('window.arrivals')) as Arrival[];
    const ends = pieceEnds(REPLY);
    for (const [turn, times] of pieceTimes(log, runId, latency)) {
      // The last piece ends the call; the turn's end, not a delta, brings it.
      for (let i = 0; i < STREAM_PIECES - 1; i++) {
        sent += 1;
        const end = ends[i] as number;
        const atPage = pageArrivals.find((a) => a.turn === turn && a.end >= end);
        if (atPage) pageLatencies.push(atPage.at - (times[i] as number));
        const atSse = sseArrivals.find((a) => a.turn === turn && a.end >= end);
        if (atSse) sseLatencies.push(atSse.at - (times[i] as number));
      }
    }
  } finally {
    await browser.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    worker.worker.shutdown();
    await running;
    await worker.connection.close();
    await bench.close();
  }
  process.stdout.write(
    `\nToken-to-browser latency through lev serve (${turns} turns of ${latency} ms, ${STREAM_PIECES} pieces a reply)\n\n`,
  );
  for (const [where, list] of [
    ['the page in Chromium', pageLatencies],
    ['an SSE client', sseLatencies],
  ] as const) {
    const sorted = [...list].sort((a, b) => a - b);
    printRow({
      reader: where,
      'pieces seen': `${list.length}/${sent}`,
      'median ms': Math.round(quantile(sorted, 0.5)),
      'p90 ms': Math.round(quantile(sorted, 0.9)),
      'max ms': Math.round(sorted.at(-1) ?? Number.NaN),
    });
  }
}
