/**
 * Context transforms between a parent and the agent it starts
 * (docs/reference/sub-agents.md#context-transforms): which of the parent's
 * entries go to which of the child's regions, and what the child writes of
 * them. The parent hands the entries as they are (a stored one by its blob
 * reference, so a large region costs its start no more than its references);
 * the child's `handoffTexts` activity reads them, and the child writes each
 * text through its region's own rules. Pure: imported by workflow code.
 */
import { findRegion, type RunState } from '../../context/state.js';
import type { Content } from '../../shapes/content.js';
import { CONVERSATION, type RegionMapping } from '../../shapes/frozen-blueprint.js';
import { type OpCall, type OpResults, textWrite } from '../ops.js';
import type { HandoffPart } from '../types.js';

/** What the child writes of one part, counted in its own model's tokens. */
export interface HandoffText {
  region: string;
  content: Content;
  tokens: number;
  /** `summarize`: the region is folded at the child's first maintenance point. */
  summarize: boolean;
}

/**
 * The parts a child is handed: per mapping, in the order written, the
 * parent region's entries (and those waiting to be folded). A region the
 * parent lacks or holds nothing in hands nothing, as in the original.
 */
export function handoffParts(mappings: readonly RegionMapping[], state: RunState): HandoffPart[] {
  const handed: HandoffPart[] = [];
  for (const m of mappings) {
    const region = findRegion(state, m.from);
    if (!region) continue;
    const parts = [...region.entries, ...region.pending].map((e) => e.content);
    if (parts.length === 0) continue;
    handed.push({
      region: m.to,
      parts,
      transform: m.transform,
      ...(m.transform === 'extract' ? { fields: m.fields ?? [] } : {}),
    });
  }
  return handed;
}

/**
 * The text one part becomes: its entries joined by newlines, `extract`
 * applied; empty when there is nothing to write.
 */
export function handoffText(part: Pick<HandoffPart, 'transform' | 'fields'>, texts: readonly string[]): string {
  const joined = texts.join('\n');
  if (joined === '') return '';
  return part.transform === 'extract' ? extractFields(joined, part.fields ?? []) : joined;
}

/**
 * `extract`: the named fields of a JSON object, in the order named, as
 * indented JSON; a field the object lacks is left out. Text that is not a
 * JSON object is handed as it is.
 */
export function extractFields(text: string, fields: readonly string[]): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return text;
  const object = value as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(object, field)) kept[field] = object[field];
  return JSON.stringify(kept, null, 2);
}

/** The write of a handed text: a user turn in the conversation, a text entry anywhere else. */
export function handoffWrite(text: HandoffText): Extract<OpCall, { kind: 'write' }> {
  return textWrite(
    { region: text.region, kind: text.region === CONVERSATION ? 'user' : 'text' },
    text.content,
    text.tokens,
    false,
  );
}

/** What the run records when a handed text could not be written. */
export function handoffRefusedDetail(region: string, message: string): string {
  return `the context the parent handed to region "${region}" was not written: ${message}`;
}

/** What follows the write of a handed text: a warning of the run when its region refused it, a fold when it is to be summarised. */
export function afterHandoffWrite(text: HandoffText, written: OpResults['write']): OpCall | undefined {
  if (!written.ok)
    return {
      kind: 'diagnostic',
      code: written.code,
      severity: 'warning',
      detail: handoffRefusedDetail(text.region, written.message),
    };
  return text.summarize ? { kind: 'compact', region: text.region } : undefined;
}
