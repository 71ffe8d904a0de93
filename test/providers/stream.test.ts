/** The loop every streamed provider call reads its events with (src/providers/stream.ts). */
import { describe, expect, it } from 'vitest';
import { AnswerTooLarge } from '../../src/providers/http.js';
import { readEvents, StreamCut, StreamStalled } from '../../src/providers/stream.js';

async function* failing(err: unknown, before: number[] = [1, 2]) {
  yield* before;
  throw err;
}

const taken: number[] = [];
const take = (n: number) => {
  taken.push(n);
};
const never = () => false;

describe('readEvents', () => {
  it('hands each event on and counts them', async () => {
    taken.length = 0;
    expect(
      await readEvents(
        (async function* () {
          yield* [1, 2, 3];
        })(),
        take,
        never,
      ),
    ).toBe(3);
    expect(taken).toEqual([1, 2, 3]);
  });

  it('turns a socket that closed into a cut, naming how far it came', async () => {
    const err = await readEvents(failing(new TypeError('terminated')), take, never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamCut);
    expect((err as StreamCut).message).toContain('after 2 events: terminated');
    expect((err as StreamCut).cause).toBeInstanceOf(TypeError);
  });

  it('keeps what is no cut as it is: too large, stalled, an abort, a timeout, what the server sent', async () => {
    const serverSent = new Error('overloaded');
    const kept = [
      new AnswerTooLarge(10),
      new StreamStalled(300),
      new DOMException('aborted', 'AbortError'),
      new DOMException('timed out', 'TimeoutError'),
      serverSent,
    ];
    for (const err of kept) await expect(readEvents(failing(err), take, (e) => e === serverSent)).rejects.toBe(err);
  });
});
