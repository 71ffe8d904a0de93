/**
 * A streamed OpenAI chat completion (`stream: true`, docs/reference/events.md#the-token-channel):
 * the fetch that hands the body on as it comes, within the same size limit as
 * the buffered one and with an idle timeout, and the assembly of the chunks
 * into the same `ChatCompletion` a whole answer is, handing the text so far
 * to the caller as it grows. A stream that ends before its reply did is a
 * cut, retried as a connection failure is.
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { AnswerTooLarge, MAX_ANSWER_BYTES, readWhole } from './http.js';

/** The body sent nothing for this long: the server stalled mid-reply. */
export class StreamStalled extends Error {
  constructor(readonly idleMs: number) {
    super(`the stream sent nothing for ${idleMs} ms`);
    this.name = 'StreamStalled';
  }
}

/** The stream ended (or broke off) before the reply's last chunk. */
export class StreamCut extends Error {
  constructor(detail: string, cause?: unknown) {
    super(`the stream ended before the reply was complete (${detail})`, cause === undefined ? undefined : { cause });
    this.name = 'StreamCut';
  }
}

/** A 2xx answer to a streamed request that is no stream: the server answered whole, as some compatible servers do. */
export class WholeAnswer extends Error {
  constructor(readonly body: string) {
    super('the server answered the streamed request whole');
    this.name = 'WholeAnswer';
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

/** An error that is not the stream breaking off: the caller's abort, or an API error the server sent in it. */
function brokeOffNot(err: unknown): boolean {
  return (
    err instanceof Error && (err.name.includes('Abort') || typeof (err as { status?: unknown }).status === 'number')
  );
}

/** One tool call as its chunks build it. */
interface CallParts {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The chat completion the chunks make: the text joined, each tool call's id, name and
 * arguments joined by its index, the finish reason and the usage of the last chunk that had one.
 */
export async function assembleChat(
  chunks: AsyncIterable<ChatCompletionChunk>,
  onText: (textSoFar: string) => void,
): Promise<ChatCompletion> {
  let text = '';
  let finish: string | null = null;
  let usage: ChatCompletion['usage'];
  let id = '';
  let model = '';
  const calls: CallParts[] = [];
  let seen = 0;
  try {
    for await (const chunk of chunks) {
      seen++;
      id ||= chunk.id ?? '';
      model ||= chunk.model ?? '';
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') {
        text += delta.content;
        onText(text);
      }
      for (const part of delta.tool_calls ?? []) {
        const call = calls[part.index] ?? { id: '', name: '', arguments: '' };
        calls[part.index] = call;
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } catch (err) {
    // Too large, stalled, aborted, or an error the server sent: as they are. A socket that closed is a cut.
    if (err instanceof AnswerTooLarge || err instanceof StreamStalled || brokeOffNot(err)) throw err;
    throw new StreamCut(`after ${seen} chunks: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  if (finish === null) throw new StreamCut(seen === 0 ? 'no chunk came' : `after ${seen} chunks`);
  const toolCalls = calls
    .filter((c): c is CallParts => c !== undefined)
    .map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: finish as ChatCompletion['choices'][number]['finish_reason'],
        message: {
          role: 'assistant',
          content: text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
