/**
 * A `tools/call` result as the text the model reads: the text blocks and
 * the text of embedded resources in order, a line for each block it cannot
 * read (an image, audio, a link), the structured content when that is all
 * there is; cut at {@link MAX_MCP_RESULT_CHARS} like a shell's output
 * (docs/reference/mcp.md#results).
 */
import { cutUnits } from '../truncate.js';

/** Longer results are cut here; region budgets and routing then apply as to any tool result. */
export const MAX_MCP_RESULT_CHARS = 200_000;

export type McpText = { ok: true; text: string; isError: boolean } | { ok: false; why: string };

function blockText(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : undefined;
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof r.text === 'string') return r.text;
      return `[resource ${String(r.uri ?? '')} (${String(r.mimeType ?? 'binary')}), not shown]`;
    }
    case 'resource_link':
      return `[resource link: ${String(b.uri ?? '')}${typeof b.name === 'string' ? ` (${b.name})` : ''}]`;
    case 'image':
    case 'audio':
      return `[${b.type} (${String(b.mimeType ?? 'unknown type')}), not shown]`;
    default:
      return undefined;
  }
}

export function mcpResultText(result: unknown): McpText {
  if (typeof result !== 'object' || result === null) return { ok: false, why: 'the result is not an object' };
  const r = result as Record<string, unknown>;
  const isError = r.isError === true;
  let text: string;
  if (Array.isArray(r.content)) {
    const parts = r.content.map(blockText);
    if (parts.some((p) => p === undefined)) return { ok: false, why: 'a content block has no readable shape' };
    text = parts.join('\n');
    if (text === '' && r.structuredContent !== undefined) text = JSON.stringify(r.structuredContent, null, 2);
  } else if (r.toolResult !== undefined) text = JSON.stringify(r.toolResult, null, 2);
  else return { ok: false, why: 'the result has no content' };
  if (text.length > MAX_MCP_RESULT_CHARS) {
    const total = text.length;
    text = `${cutUnits(text, MAX_MCP_RESULT_CHARS)}\n[the result was cut at ${MAX_MCP_RESULT_CHARS.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters; ask the tool for less]`;
  }
  return { ok: true, text, isError };
}
