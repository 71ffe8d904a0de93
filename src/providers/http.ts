/**
 * The fetch both SDK clients use: it reads the whole answer body before
 * handing the response over, so the SDK's request timeout (which otherwise
 * stops at the headers) also bounds a server that sends headers and then
 * stalls, and it refuses a body over a size limit instead of holding it all.
 */

/** Largest answer a provider may send. A model's longest reply is far smaller; this only stops hostile servers. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** Statuses whose response may not carry a body. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** Thrown from inside fetch; the SDK wraps it as a connection error and the adapter looks for it as the cause. */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer body is larger than ${limit} bytes`);
    this.name = 'AnswerTooLarge';
  }
}

/** Finds an AnswerTooLarge among an error's causes. */
export function answerTooLarge(err: unknown): AnswerTooLarge | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur instanceof Error; depth++) {
    if (cur instanceof AnswerTooLarge) return cur;
    cur = cur.cause;
  }
  return undefined;
}

export function bufferedFetch(limit: number = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => readWhole(await fetch(input, init), limit);
}

/** The response with its whole body read, refusing a body over `limit` bytes. */
export async function readWhole(res: Response, limit: number = MAX_ANSWER_BYTES): Promise<Response> {
  {
    if (NO_BODY.has(res.status) || !res.body) return res;
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (declared > limit) {
      await res.body.cancel();
      throw new AnswerTooLarge(limit);
    }
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        throw new AnswerTooLarge(limit);
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  }
}
