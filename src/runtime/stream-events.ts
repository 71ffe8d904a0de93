/**
 * The events a run's workflows write to their stream (docs/reference/events.md),
 * built from what they already hold: a reply and the region bars after it, a
 * tool call and its effect, a gate's outcome. Summaries only: a preview of a
 * text, and a large one by its blob reference, never whole outputs. Pure;
 * bundled into workflow code.
 */
import { contentText } from '../context/measure.js';
import type { ToolCall } from '../shapes/content.js';
import type { NewEvent, RegionTokens } from '../shapes/run-events.js';
import { clipUnits } from '../truncate.js';
import type { InferOutput } from './activity-types.js';
import { callSubject } from './calls.js';
import type { Progress } from './types.js';
import type { CallEffect } from './visit.js';

/** Characters of a reply or a result an event previews. */
export const PREVIEW_CHARS = 200;

/** The window by region as a turn ends, from the visit's progress. */
export function windowOf(progress: Pick<Progress, 'regions' | 'window'>): {
  used: number;
  max: number;
  regions: RegionTokens[];
} {
  return {
    used: progress.window.used,
    max: progress.window.max,
    regions: progress.regions.map((r) => ({
      region: r.name,
      tokens: r.tokens,
      ...(r.budget > 0 ? { budget: r.budget } : {}),
    })),
  };
}

/** A stored reply: the turn it ended, its preview, the window after it, its usage and estimated cost. */
export function turnEnded(
  at: { stage: string; turn: number; time: number },
  reply: Pick<InferOutput, 'content' | 'toolCalls' | 'invalidToolCalls' | 'usage' | 'model'>,
  progress: Pick<Progress, 'regions' | 'window'>,
  cost: number | null,
): NewEvent {
  const { promptTokens, completionTokens } = reply.usage;
  return {
    kind: 'turn-ended',
    ...at,
    ...(reply.model ? { model: reply.model } : {}),
    preview: clipUnits(contentText(reply.content), PREVIEW_CHARS),
    calls: reply.toolCalls.length + reply.invalidToolCalls.length,
    window: windowOf(progress),
    usage: {
      promptTokens,
      completionTokens,
      cacheReadTokens: reply.usage.cacheReadTokens,
      cacheWriteTokens: reply.usage.cacheWriteTokens,
    },
    ...(cost !== null ? { cost } : {}),
  };
}

/** A tool call as the model made it: its tool and short subject, never its whole arguments. */
export function toolCalled(at: { stage: string; turn: number; time: number }, call: ToolCall): NewEvent {
  return { kind: 'tool-call', ...at, call: call.id, tool: call.name, subject: callSubject(call) };
}

/** How a call was answered: whether it did what it was asked, a summary, and the blob of a large result. */
export function toolAnswered(
  at: { stage: string; turn: number; time: number },
  call: Pick<ToolCall, 'id' | 'name'>,
  effect: CallEffect,
): NewEvent {
  const base = { kind: 'tool-result' as const, ...at, call: call.id, tool: call.name };
  if (effect.kind === 'refused') return { ...base, ok: false, summary: 'refused: the stage was not given this tool' };
  const ok = !effect.isError;
  if (effect.kind !== 'builtin' || effect.content === undefined) return { ...base, ok, summary: ok ? 'ok' : 'error' };
  const content = effect.content;
  return {
    ...base,
    ok,
    summary: effect.denied ? 'denied' : clipUnits(contentText(content), PREVIEW_CHARS),
    ...(effect.tokens !== undefined ? { tokens: effect.tokens } : {}),
    ...(typeof content === 'string' ? {} : { blob: content.hash }),
  };
}

/** A stage visit began: the run's `visit`th. */
export function stageEntered(stage: string, visit: number, time: number): NewEvent {
  return { kind: 'stage-entered', time, stage, visit };
}

/** A stage visit ended, as its outcome says. */
export function stageLeft(stage: string, visit: number, end: string, time: number): NewEvent {
  return { kind: 'stage-left', time, stage, visit, end };
}

/** A stage's completion checks as it wanted to leave: passed, blocked, or let through after too many blocks. */
export function gateChecked(
  stage: string,
  target: string | null,
  gate: { outcome: 'pass' | 'block' | 'forced'; check?: string },
  time: number,
): NewEvent {
  return {
    kind: 'gate',
    time,
    stage,
    gate: gate.check ?? `to ${target ?? 'the end'}`,
    passed: gate.outcome !== 'block',
    ...(gate.outcome === 'forced' ? { detail: 'forced after too many blocked attempts' } : {}),
  };
}
