/**
 * What every streamed provider call shares (docs/reference/events.md#the-token-channel): the
 * fetch that hands an event stream on as it comes, within the same size limit as a buffered
 * answer and with an idle timeout; the errors a stream ends with (stalled, cut, answered whole);
 * and the loop that reads the SDK's parsed events, telling a stream that broke off from an
 * error the server or the caller meant. Each provider's assembly of its events lives beside it.
 */
import { type CallContext, classifyFailure, type FailureFacts } from './classify.js';
import { AnswerTooLarge, MAX_ANSWER_BYTES, readWhole } from './http.js';

/** The body sent nothing for this long: the server stalled mid-reply. */
export class StreamStalled extends Error {
  constructor(readonly idleMs: number) {
    super(`the stream sent nothing for ${idleMs} ms`);
    this.name = 'StreamStalled';
  }
}

/** The stream ended (or broke off) before the reply's last event. */
export class StreamCut extends Error {
  constructor(detail: string, cause?: unknown) {
    super(`the stream ended before the reply was complete (${detail})`, cause === undefined ? undefined : { cause });
    this.name = 'StreamCut';
  }
}

/** A 2xx answer to a streamed request that is no stream: the server answered whole, as some servers do. */
export class WholeAnswer extends Error {
  constructor(readonly body: string) {
    super('the server answered the streamed request whole');
    this.name = 'WholeAnswer';
  }
}

/** The first error of `type` among an error's causes. */
export function causeOf<T extends Error>(err: unknown, type: new (...args: never[]) => T): T | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur instanceof Error; depth++) {
    if (cur instanceof type) return cur;
    cur = cur.cause;
  }
  return undefined;
}

/**
 * What a call whose SDK threw `err` is left with: the reply a server sent whole to a streamed
 * request, parsed; else the failure `factsOf` reads from the SDK's error, classified and thrown.
 * An error it cannot read, and any error after the caller aborted (the SDK ends an aborted stream
 * quietly, which would read as a cut), is rethrown as it is: the abort is the news.
 */
export function wholeAnswerOr<T>(
  err: unknown,
  factsOf: (err: unknown) => FailureFacts | undefined,
  signal: AbortSignal | undefined,
  context: CallContext,
): { whole: WholeAnswer; res: T } {
  const whole = causeOf(err, WholeAnswer);
  if (!whole) {
    const facts = signal?.aborted ? undefined : factsOf(err);
    if (!facts) throw err;
    throw classifyFailure(facts, context);
  }
  try {
    return { whole, res: JSON.parse(whole.body) as T };
  } catch (bad) {
    const serverMessage = `the body is not valid JSON (${(bad as Error).message})`;
    throw classifyFailure({ badResponse: true, serverMessage }, context);
  }
}

/**
 * A fetch that passes a 2xx event stream on as it arrives, refusing one over `limit` bytes or idle
 * for `idleMs`; any other 2xx body is read whole (within the limit) and thrown as a `WholeAnswer`.
 */
export function streamingFetch(idleMs: number, limit: number = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.ok || !res.body) return res;
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
      throw new WholeAnswer(await (await readWhole(res, limit)).text());
    const reader = res.body.getReader();
    let total = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let timer: NodeJS.Timeout | undefined;
        const stalled = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StreamStalled(idleMs)), idleMs);
        });
        try {
          const { done, value } = await Promise.race([reader.read(), stalled]);
          if (done) return controller.close();
          total += value.byteLength;
          if (total > limit) throw new AnswerTooLarge(limit);
          controller.enqueue(value);
        } catch (err) {
          await reader.cancel().catch(() => {});
          controller.error(err);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/**
 * Reads every event, handing each to `take`, and returns how many came. An error that is not the
 * stream breaking off (too large, stalled, the caller's abort, an error the server sent, which
 * `meant` recognises) is thrown as it is; a socket that closed is a `StreamCut`.
 */
export async function readEvents<T>(
  events: AsyncIterable<T>,
  take: (event: T) => void,
  meant: (err: unknown) => boolean,
): Promise<number> {
  let seen = 0;
  try {
    for await (const event of events) {
      seen++;
      take(event);
    }
  } catch (err) {
    if (err instanceof AnswerTooLarge || err instanceof StreamStalled || meant(err)) throw err;
    // An abort (the caller's) or a timeout (the SDK's own clock) is what it says, not a cut.
    if (err instanceof Error && (err.name.includes('Abort') || err.name === 'TimeoutError')) throw err;
    throw new StreamCut(`after ${seen} events: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  return seen;
}
