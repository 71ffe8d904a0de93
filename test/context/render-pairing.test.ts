/**
 * Invariant: whatever sequence of turns, tool results and evictions came
 * before, the rendered messages never hold a tool call without its result
 * or a result without its call (docs/reference/regions.md#turn-groups and docs/reference/rendering.md#messages).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { enterStage } from '../../src/context/enter-stage.js';
import type { EngineEnv } from '../../src/context/kinds/custom.js';
import { maintain } from '../../src/context/maintenance.js';
import { renderPrompt } from '../../src/context/render.js';
import { runSync } from '../../src/context/requests.js';
import { routeToolResult } from '../../src/context/routing.js';
import { createRunState } from '../../src/context/state.js';
import { writeEntry } from '../../src/context/write.js';
import type { PromptMessage, ToolCall } from '../../src/shapes/content.js';
import type { EngineRequest } from '../../src/shapes/engine-requests.js';

const dir = mkdtempSync(join(tmpdir(), 'lev-pairing-'));
const env: EngineEnv = { now: 0 };

function handler(req: EngineRequest): unknown {
  if (req.type === 'count') return Math.max(1, Math.ceil(req.text.length / 20));
  if (req.type === 'cut') return { content: `<${req.target} of ${req.tokens} tokens, cut>`, tokens: req.target };
  if (req.type !== 'summarise') throw new Error(`unexpected ${req.type} request`);
  return { ok: true, text: { content: `summary of ${req.entries.length}`, tokens: Math.min(req.limit, 2) } };
}

const LAYOUTS = {
  conversation: '[context.regions]\nconversation = { kind = "sliding_window", max_tokens = 120, max_items = 7 }\n',
  compacting:
    '[context.regions]\nconversation = { kind = "sliding_window", max_tokens = 120, max_items = 6, strategy = "compact", compact_count = 3 }\n',
  routed: `[context.regions]
scratch = { kind = "temporary", max_tokens = 150, admission = "reject" }
conversation = { kind = "sliding_window", max_tokens = 200, max_items = 5, strategy = "bulk", overflow = 2 }
[stages.main.tool_routing]
default_region = "scratch"
`,
};

type Step =
  | { op: 'user'; tokens: number }
  | { op: 'assistant'; tokens: number; calls: number }
  | { op: 'result'; pick: number; tokens: number; isError: boolean }
  | { op: 'maintain' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('user' as const), tokens: fc.integer({ min: 0, max: 60 }) }),
  fc.record({
    op: fc.constant('assistant' as const),
    tokens: fc.integer({ min: 0, max: 40 }),
    calls: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({
    op: fc.constant('result' as const),
    pick: fc.nat(),
    tokens: fc.integer({ min: 0, max: 400 }),
    isError: fc.boolean(),
  }),
  fc.record({ op: fc.constant('maintain' as const) }),
);

function unpaired(messages: PromptMessage[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.add(c.id);
    if (m.role === 'tool') {
      if (!open.has(m.toolCallId)) problems.push(`result ${m.toolCallId} without a call before it`);
      open.delete(m.toolCallId);
    }
  }
  for (const id of open) problems.push(`call ${id} without a result`);
  return problems;
}

describe('rendered tool calls and results stay paired', () => {
  it.each(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[])('for any sequence of turns (%s)', (layout) => {
    const loaded = loadBlueprintFromString(LAYOUTS[layout], dir, join(dir, 'agent.toml'), { window: 100_000 });
    if (!loaded.blueprint) throw new Error(JSON.stringify(loaded.diagnostics));
    const bp = loaded.blueprint;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const state = createRunState(bp, { window: 100_000 });
        runSync(enterStage(state, bp, 'main', env), handler);
        let pending: ToolCall[] = [];
        let nextCall = 0;
        for (const s of steps) {
          if (s.op === 'user')
            runSync(
              writeEntry(state, 'conversation', { kind: 'user', content: `u${s.tokens}`, tokens: s.tokens }, env),
              handler,
            );
          if (s.op === 'maintain') runSync(maintain(state, bp, env), handler);
          if (s.op === 'assistant') {
            runSync(maintain(state, bp, env), handler);
            const calls = Array.from({ length: s.calls }, () => ({
              id: `t${nextCall++}`,
              name: 'grep',
              arguments: {},
            }));
            const written = runSync(
              writeEntry(
                state,
                'conversation',
                { kind: 'assistant', content: '', tokens: s.tokens, toolCalls: calls },
                env,
              ),
              handler,
            );
            pending = written.ok ? calls : [];
          }
          if (s.op === 'result' && pending.length > 0) {
            const call = pending.splice(s.pick % pending.length, 1)[0]!;
            runSync(
              routeToolResult(
                state,
                bp,
                call,
                { content: `out ${call.id}`, tokens: s.tokens, isError: s.isError },
                env,
              ),
              handler,
            );
          }
        }
        expect(unpaired(renderPrompt(state, bp, env).messages)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
