/**
 * When the scripted model's text pieces left the inference activity, for the benches that time
 * how late each reaches a reader (`stream.ts`: a subscriber; `serve-latency.ts`: a browser and an
 * SSE client): the scripted provider streams a reply in `STREAM_PIECES` even pieces over its
 * latency, and its call log says when the call was served.
 */
import { readFileSync } from 'node:fs';
import { STREAM_PIECES } from '../src/providers/scripted.js';

/** When each piece of a turn's text reached the activity: the call's end less the shares of the latency after it. */
export function pieceTimes(log: string, runId: string, latency: number): Map<number, number[]> {
  const times = new Map<number, number[]>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (!line) continue;
    const call = JSON.parse(line) as { runId: string; turn: number; purpose: string; served_at_ms: number };
    if (call.runId !== runId || call.purpose !== 'turn') continue;
    times.set(
      call.turn,
      Array.from(
        { length: STREAM_PIECES },
        (_, i) => call.served_at_ms - (latency * (STREAM_PIECES - 1 - i)) / STREAM_PIECES,
      ),
    );
  }
  return times;
}

/** The character each piece of the reply ends at. */
export const pieceEnds = (text: string) =>
  Array.from({ length: STREAM_PIECES }, (_, i) => Math.ceil((text.length * (i + 1)) / STREAM_PIECES));

/** The value at quantile `q` of sorted numbers. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
