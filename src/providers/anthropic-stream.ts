/**
 * A streamed Anthropic message (`stream: true`, docs/reference/events.md#the-token-channel): the
 * assembly of its events (message_start, content blocks and their text and tool-input deltas,
 * message_delta with the stop reason and usage, message_stop) into the same `Message` a whole
 * answer is, handing the text so far to the caller as it grows. A stream that ends before its stop
 * reason is a cut, retried as a connection failure is (src/providers/stream.ts).
 */
import type { ContentBlock, Message, RawMessageStreamEvent, Usage } from '@anthropic-ai/sdk/resources/messages';
import { readEvents, StreamCut } from './stream.js';

/** One content block as its deltas build it; tool input stays JSON text until the block is done. */
type BlockParts = { kind: 'text'; text: string } | { kind: 'tool'; id: string; name: string; json: string };

/** A tool_use block's input: the joined JSON, or the text itself when it is not JSON, which the mapping then reports. */
function toolInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** Text blocks joined as `mapMessageResponse` joins them, so the text so far is a prefix of the reply's. */
function textOf(blocks: (BlockParts | undefined)[]): string {
  return blocks
    .filter((b): b is BlockParts & { kind: 'text' } => b?.kind === 'text')
    .map((b) => b.text)
    .join('\n');
}

/**
 * The message the events make. The usage starts as message_start's and takes each figure
 * message_delta reports (they are cumulative); an error event is the SDK's API error, thrown as it is.
 */
export async function assembleMessage(
  events: AsyncIterable<RawMessageStreamEvent>,
  onText: (textSoFar: string) => void,
  serverSent: (err: unknown) => boolean,
): Promise<Message> {
  const state: { start?: Message; stop: Message['stop_reason']; stopSequence: string | null; usage?: Usage } = {
    stop: null,
    stopSequence: null,
  };
  const blocks: (BlockParts | undefined)[] = [];
  const seen = await readEvents(
    events,
    (event) => {
      switch (event.type) {
        case 'message_start':
          state.start = event.message;
          state.usage = { ...event.message.usage };
          if (event.message.stop_reason) state.stop = event.message.stop_reason;
          break;
        case 'content_block_start': {
          const b = event.content_block;
          if (b.type === 'text') blocks[event.index] = { kind: 'text', text: b.text };
          else if (b.type === 'tool_use') blocks[event.index] = { kind: 'tool', id: b.id, name: b.name, json: '' };
          if (b.type === 'text' && b.text !== '') onText(textOf(blocks));
          break;
        }
        case 'content_block_delta': {
          const b = blocks[event.index];
          if (event.delta.type === 'text_delta' && b?.kind === 'text') {
            b.text += event.delta.text;
            onText(textOf(blocks));
          } else if (event.delta.type === 'input_json_delta' && b?.kind === 'tool') b.json += event.delta.partial_json;
          break;
        }
        case 'message_delta': {
          state.stop = event.delta.stop_reason ?? state.stop;
          state.stopSequence = event.delta.stop_sequence ?? state.stopSequence;
          const u = event.usage;
          const usage = state.usage ?? ({} as Usage);
          state.usage = {
            ...usage,
            output_tokens: u.output_tokens,
            ...(u.input_tokens != null ? { input_tokens: u.input_tokens } : {}),
            ...(u.cache_read_input_tokens != null ? { cache_read_input_tokens: u.cache_read_input_tokens } : {}),
            ...(u.cache_creation_input_tokens != null
              ? { cache_creation_input_tokens: u.cache_creation_input_tokens }
              : {}),
          };
          break;
        }
      }
    },
    serverSent,
  );
  if (!state.start || state.stop === null) throw new StreamCut(seen === 0 ? 'no event came' : `after ${seen} events`);
  const content = blocks
    .filter((b): b is BlockParts => b !== undefined)
    .map(
      (b): ContentBlock =>
        b.kind === 'text'
          ? { type: 'text', text: b.text, citations: null }
          : ({ type: 'tool_use', id: b.id, name: b.name, input: toolInput(b.json) } as ContentBlock),
    );
  return {
    ...state.start,
    content,
    stop_reason: state.stop,
    stop_sequence: state.stopSequence,
    ...(state.usage ? { usage: state.usage } : {}),
  };
}
