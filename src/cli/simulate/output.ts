/**
 * The simulator's result (docs/reference/simulator.md#json-output): every region with its entries, the
 * window, the prompt the next inference would receive, and the run's
 * counters. Plain JSON, printed as is with `--json`.
 */

import { items } from '../../context/kinds/checklist.js';
import { kindBehaviour } from '../../context/kinds/index.js';
import { contentText, preview, regionTokens } from '../../context/measure.js';
import { type RenderedPrompt, systemBlockText } from '../../context/render.js';
import { type RunState, windowUsed } from '../../context/state.js';
import type { PromptMessage, ToolCall } from '../../shapes/content.js';

export interface EventResult {
  ok: boolean;
  text: string;
}

export interface EntryView {
  index: number;
  key: string | null;
  kind: string;
  tokens: number;
  summary: boolean;
  preview: string;
}

export interface RegionView {
  name: string;
  kind: string;
  budget: number;
  tokens: number;
  hidden: boolean;
  threshold?: number;
  entries: EntryView[];
  open_items?: { id: number; text: string; note?: string }[];
}

export interface MessageView {
  role: PromptMessage['role'];
  content: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** The tail message (docs/reference/rendering.md#tail). */
  tail?: true;
}

export interface SimOutput {
  results: EventResult[];
  regions: RegionView[];
  window: { max: number; used: number; gap: number };
  prompt: { system: string[]; messages: MessageView[] };
  run: {
    stage: string;
    attempts: number;
    gates_forced: RunState['gatesForced'];
    diagnostics: RunState['diagnostics'];
  };
}

export const PREVIEW_CHARS = 60;

export function regionView(region: RunState['regions'][number]): RegionView {
  const view: RegionView = {
    name: region.name,
    kind: region.kind,
    budget: region.budget,
    tokens: regionTokens(region),
    hidden: region.hidden === true,
    entries: region.entries.map((e, index) => ({
      index,
      key: e.key ?? null,
      kind: e.kind,
      tokens: e.tokens,
      summary: e.summary === true,
      preview: preview(e.content, PREVIEW_CHARS),
    })),
  };
  if (region.threshold !== undefined) view.threshold = region.threshold;
  if (kindBehaviour(region.kind).entries === 'items') {
    view.open_items = items(region)
      .filter((e) => !e.checklist?.done)
      .map((e) => {
        const item: { id: number; text: string; note?: string } = {
          id: e.checklist?.id ?? 0,
          text: contentText(e.content),
        };
        if (e.checklist?.note !== undefined) item.note = e.checklist.note;
        return item;
      });
  }
  return view;
}

export function messageView(message: PromptMessage): MessageView {
  const view: MessageView = { role: message.role, content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) view.tool_calls = message.toolCalls;
  if (message.role === 'tool') view.tool_call_id = message.toolCallId;
  if (message.role === 'user' && message.tail) view.tail = true;
  return view;
}

export function buildOutput(state: RunState, results: EventResult[], prompt: RenderedPrompt): SimOutput {
  const visible = state.regions.filter((r) => !r.hidden);
  const hidden = state.regions.filter((r) => r.hidden);
  return {
    results,
    regions: [...visible, ...hidden].map(regionView),
    window: { max: state.window.max, used: windowUsed(state), gap: state.window.gap },
    prompt: { system: prompt.system.map(systemBlockText), messages: prompt.messages.map(messageView) },
    run: {
      stage: state.stage,
      attempts: state.attempts,
      gates_forced: state.gatesForced,
      diagnostics: state.diagnostics,
    },
  };
}
