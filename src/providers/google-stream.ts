/**
 * A streamed Gemini answer (`streamGenerateContent?alt=sse`, docs/reference/events.md#the-token-channel):
 * the assembly of its chunks into the same `GenerateContentResponse` a whole answer is, handing the
 * text so far to the caller as it grows. Each chunk carries the next parts of the first candidate
 * (text pieces, thoughts, whole function calls); the last carries the finish reason, and the usage
 * is the latest chunk's (a running total). A stream that ends before its finish reason is a cut,
 * retried as a connection failure is (src/providers/stream.ts).
 */
import type * as GenAI from '@google/genai';
import { readEvents, StreamCut } from './stream.js';

/**
 * The response the chunks make: the first candidate's parts in order, the last finish reason and
 * usage seen, and a prompt's block reason, which comes with no candidate and ends the stream.
 */
export async function assembleGenerate(
  chunks: AsyncIterable<GenAI.GenerateContentResponse>,
  onText: (textSoFar: string) => void,
  serverSent: (err: unknown) => boolean,
): Promise<GenAI.GenerateContentResponse> {
  const parts: GenAI.Part[] = [];
  const state: {
    finish?: GenAI.FinishReason;
    usage?: GenAI.GenerateContentResponseUsageMetadata;
    feedback?: GenAI.GenerateContentResponsePromptFeedback;
    model?: string;
    anyCandidate: boolean;
  } = { anyCandidate: false };
  let text = '';
  const seen = await readEvents(
    chunks,
    (chunk) => {
      if (chunk.usageMetadata) state.usage = chunk.usageMetadata;
      if (chunk.promptFeedback) state.feedback = chunk.promptFeedback;
      state.model ??= chunk.modelVersion;
      const candidate = chunk.candidates?.[0];
      if (!candidate) return;
      state.anyCandidate = true;
      for (const part of candidate.content?.parts ?? []) {
        parts.push(part);
        // Thought summaries are the model's reasoning, not its answer (as the whole answer is read).
        if (!part.thought && typeof part.text === 'string' && part.text !== '') {
          text += part.text;
          onText(text);
        }
      }
      if (candidate.finishReason) state.finish = candidate.finishReason;
    },
    serverSent,
  );
  const blocked = state.feedback?.blockReason !== undefined && !state.anyCandidate;
  if (state.finish === undefined && !blocked)
    throw new StreamCut(seen === 0 ? 'no chunk came' : `after ${seen} chunks`);
  return {
    ...(state.anyCandidate
      ? { candidates: [{ index: 0, content: { role: 'model', parts }, finishReason: state.finish }] }
      : {}),
    ...(state.usage ? { usageMetadata: state.usage } : {}),
    ...(state.feedback ? { promptFeedback: state.feedback } : {}),
    ...(state.model ? { modelVersion: state.model } : {}),
  } as GenAI.GenerateContentResponse;
}
