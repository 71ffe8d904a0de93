/**
 * The stage hooks that see a reply before the visit stores it
 * (docs/reference/stage-hooks.md): `after_inference` may replace its text,
 * `on_tool_call` its calls, before the tool policy sees them. The decisions
 * are `src/runtime/stage-hooks.ts`'s; this adapter only recounts what they
 * changed. Run by visits that ask `STAGE_HOOKS`.
 */
import type { InferOutput } from '../../src/runtime/activity-types.js';
import { afterInferenceHook, toolCallHook } from '../../src/runtime/stage-hooks.js';
import type { StageDef } from '../../src/shapes/frozen-blueprint.js';
import type { StageVisit } from './stage-visit.js';

/** The reply as the stage's hooks leave it, or why the run ends. */
export async function replyHooks(
  visit: StageVisit,
  def: StageDef,
  stageIndex: number,
  reply: InferOutput,
): Promise<InferOutput | { hookFailed: string }> {
  let out = reply;
  // A reply stored as a blob is shown by its first characters.
  const text = typeof out.content === 'string' ? out.content : out.content.preview;
  const after = afterInferenceHook(def, stageIndex, {
    text,
    tokens: out.tokens,
    toolNames: out.toolCalls.map((c) => c.name),
  });
  if (after && 'failed' in after) return { hookFailed: after.failed };
  if (after) {
    const was = typeof out.content === 'string' ? await visit.driver.count(out.content) : 0;
    const now = await visit.driver.count(after.text);
    out = { ...out, content: after.text, tokens: Math.max(0, out.tokens - was + now) };
  }
  const calls = toolCallHook(def, stageIndex, out.toolCalls);
  if (calls && 'failed' in calls) return { hookFailed: calls.failed };
  if (calls) {
    // A call left exactly as it was keeps its counts; the engine counts any other's arguments itself.
    const counted = new Map(out.toolCalls.map((c) => [`${c.id}\0${JSON.stringify(c.arguments)}`, c.argTokens]));
    const toolCalls = calls.calls.map((c) => ({
      ...c,
      argTokens: counted.get(`${c.id}\0${JSON.stringify(c.arguments)}`) ?? {},
    }));
    out = { ...out, toolCalls };
  }
  return out;
}
