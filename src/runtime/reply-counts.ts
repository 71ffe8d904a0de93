/**
 * The texts the workflow will count right after an inference, counted ahead
 * by the inference activity (docs/architecture.md#one-turn-through-the-files).
 * After a reply the workflow stores the assistant turn, applies its context
 * tools and routes their answers; each answer and each refusal is text the
 * workflow composes and must count. The activity holds the region set and the
 * tokenizer already, so it plays the same steps on a copy and hands back the
 * counts; the workflow then needs no `countText` call, and a context-tool turn
 * is one workflow task and one activity. A text the prediction missed (a
 * built-in tool's result changed what followed) is counted as before: the
 * counts are a lookup by text, never trusted for anything but that text.
 * Pure: the activity imports it, and its steps mirror `workflows/visit/stage-visit.ts`.
 */

import {
  cloneData,
  contentText,
  type EngineEnv,
  type EngineOp,
  type RunState,
  type ToolCall,
} from '../context/index.js';
import type { EngineRequest } from '../shapes/engine-requests.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { isContextTool } from '../tools/builtin-names.js';
import { isGranted, notGrantedResult } from '../tools/grants.js';
import type { InferOutput } from './activity-types.js';
import type { EngineCalls } from './ops.js';
import { invalidArgumentsText } from './texts.js';
import { routedCall } from './visit.js';

/** Stops the prediction at a request only an activity can answer (a cut, a summary, a join). */
class NeedsActivity extends Error {}

/**
 * Counts, by text, of what the workflow will count while it stores `reply`
 * and answers its calls, as far as no built-in tool result is needed.
 */
export function replyCounts(
  engine: EngineCalls,
  before: RunState,
  bp: Blueprint,
  stage: string,
  reply: Pick<InferOutput, 'content' | 'tokens' | 'toolCalls' | 'invalidToolCalls'>,
  env: EngineEnv,
  count: (text: string) => number,
  /** The MCP tools the visit's discovery gave the stage (docs/reference/mcp.md#tool-names-and-grants). */
  mcp: readonly string[] = [],
): [string, number][] {
  const counted = new Map<string, number>();
  const counter = (text: string): number => {
    let n = counted.get(text);
    if (n === undefined) {
      n = count(text);
      counted.set(text, n);
    }
    return n;
  };
  const run = <T>(op: EngineOp<T>): T => {
    let step = op.next();
    while (!step.done) step = op.next(answer(step.value, counter));
    return step.value;
  };
  const state = cloneData(before);
  const calls: ToolCall[] = reply.toolCalls.map(({ argTokens: _counted, ...call }) => call);
  const invalid = reply.invalidToolCalls.map((c) => ({ id: c.id, name: c.name, arguments: {} }));
  try {
    run(
      engine.writeEntry(
        state,
        'conversation',
        { kind: 'assistant', content: reply.content, tokens: reply.tokens, toolCalls: [...calls, ...invalid] },
        env,
      ),
    );
    for (const bad of reply.invalidToolCalls) {
      const text = invalidArgumentsText(bad.name, bad.error);
      const result = { content: text, tokens: counter(text), isError: true };
      run(engine.routeToolResult(state, bp, { id: bad.id, name: bad.name, arguments: {} }, result, env));
    }
    for (const { argTokens, ...call } of reply.toolCalls) {
      if (!isGranted(bp, stage, call.name, mcp)) {
        const text = notGrantedResult(bp, stage, call.name, mcp);
        run(engine.routeToolResult(state, bp, call, { content: text, tokens: counter(text), isError: true }, env));
        continue;
      }
      // What a built-in tool answers is known only once it ran: the rest is counted when it happens.
      if (!isContextTool(call.name)) break;
      const opts = { readsStored: true, ...(call.blobArgs ? { blobArgs: call.blobArgs } : {}) };
      const result = run(engine.applyContextTool(state, bp, call.name, call.arguments, env, argTokens, opts));
      const tokens = result.tokens ?? counter(contentText(result.content));
      const routed = { content: result.content, tokens, isError: result.isError };
      run(engine.routeToolResult(state, bp, routedCall(call), routed, env));
    }
  } catch (err) {
    if (!(err instanceof NeedsActivity)) throw err;
  }
  return [...counted];
}

function answer(req: EngineRequest, count: (text: string) => number): unknown {
  if (req.type === 'count') return count(req.text);
  throw new NeedsActivity(req.type);
}
