/**
 * The engine never counts, cuts or summarises text itself. Operations that
 * need one of those yield a request and receive the answer, so the same code
 * runs synchronously in tests and the simulator and asynchronously (through
 * activities) inside a workflow.
 */
import type { Content, CountedText, Entry } from '../shapes/content.js';
import type { EngineRequest, SummaryAnswer } from '../shapes/engine-requests.js';

export type EngineAnswer<R extends EngineRequest> = R extends { type: 'count' }
  ? number
  : R extends { type: 'cut' }
    ? CountedText
    : R extends { type: 'join' }
      ? Content
      : SummaryAnswer;

// biome-ignore lint/suspicious/noExplicitAny: answers are typed by the helpers below, which every operation uses.
export type EngineOp<T> = Generator<EngineRequest, T, any>;

/** Drives an operation to completion with a synchronous handler (simulator, tests). */
export function runSync<T>(op: EngineOp<T>, handler: (req: EngineRequest) => unknown): T {
  let step = op.next();
  while (!step.done) step = op.next(handler(step.value));
  return step.value;
}

export function* count(text: string): EngineOp<number> {
  const answer: unknown = yield { type: 'count', text };
  if (typeof answer !== 'number' || !Number.isInteger(answer) || answer < 0) {
    throw new TypeError(`count answer must be a non-negative integer, got ${String(answer)}`);
  }
  return answer;
}

export function* cut(content: Content, tokens: number, target: number, marker: string): EngineOp<CountedText> {
  const answer: CountedText = yield { type: 'cut', content, tokens, target, marker };
  return answer;
}

export function* join(parts: Content[]): EngineOp<Content> {
  const answer: Content = yield { type: 'join', parts };
  return answer;
}

export function* summarise(region: string, entries: Entry[], limit: number, prompt?: string): EngineOp<SummaryAnswer> {
  const req: EngineRequest = { type: 'summarise', region, entries, limit };
  if (prompt !== undefined) req.prompt = prompt;
  const answer: SummaryAnswer = yield req;
  return answer;
}
