/**
 * Anthropic prompt-cache breakpoints (docs/reference/rendering.md#cache-markers). The engine only marks
 * where a breakpoint belongs; the Anthropic adapter turns the marks into
 * `cache_control` and other adapters ignore them.
 */
import type { PromptMessage, PromptSystemBlock } from './types.js';

/** Sort class of each system block, as computed by the renderer (docs/reference/rendering.md#system-order). */
export interface MarkedBlock {
  block: PromptSystemBlock;
  cls: number;
  stageInstructions: boolean;
}

/**
 * Marks the last block before `stage_instructions` (else the last class-0
 * block), the last system block, and one message. The message mark is left
 * off when the system section changed since the previous request, because
 * everything cached behind it is invalid anyway.
 */
export function placeCacheMarkers(
  blocks: readonly MarkedBlock[],
  messages: PromptMessage[],
  systemChanged: boolean,
): void {
  const instructionsAt = blocks.findIndex((b) => b.stageInstructions);
  let prefixEnd = instructionsAt > 0 ? instructionsAt - 1 : -1;
  if (prefixEnd < 0) {
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (blocks[i]?.cls === 0) {
        prefixEnd = i;
        break;
      }
    }
  }
  const prefix = blocks[prefixEnd];
  if (prefix) prefix.block.cache = true;
  const last = blocks[blocks.length - 1];
  if (last) last.block.cache = true;

  if (systemChanged) return;
  const at = messages.length >= 5 ? messages.length - 4 : messages.length >= 2 ? 0 : -1;
  const message = messages[at];
  if (message) message.cache = true;
}
