/**
 * A streamed OpenAI chat completion (`stream: true`, docs/reference/events.md#the-token-channel):
 * the assembly of the chunks into the same `ChatCompletion` a whole answer is, handing the text
 * so far to the caller as it grows. A stream that ends before its reply did is a cut, retried as
 * a connection failure is (src/providers/stream.ts).
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { readEvents, StreamCut } from './stream.js';

/** An error the server sent in the stream (the SDK's API error), not the stream breaking off. */
function serverSent(err: unknown): boolean {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number';
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
  const seen = await readEvents(
    chunks,
    (chunk) => {
      id ||= chunk.id ?? '';
      model ||= chunk.model ?? '';
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) return;
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
    },
    serverSent,
  );
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
