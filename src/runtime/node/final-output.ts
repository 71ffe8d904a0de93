/**
 * The run's final output as it goes back through the workflow into its
 * result. Workflow payloads are limited to a few megabytes (Temporal refuses
 * larger ones with PayloadsTooLarge and the call would fail on every retry),
 * so an output beyond the limit is cut and names the blob holding all of it.
 */
import { type BlobStore, fullText, isBlobRef } from '../../blobs/index.js';
import type { Content } from '../../shapes/content.js';
import { cutUnits } from '../../truncate.js';

/** Largest final output carried whole, in UTF-16 units (at most 3 bytes each in UTF-8, well under the limit). */
export const MAX_OUTPUT_CHARS = 512 * 1024;

export async function finalOutputText(store: BlobStore, content: Content): Promise<string> {
  const text = await fullText(store, content);
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const where = isBlobRef(content) ? ` stored as blob ${content.hash}` : '';
  return `${cutUnits(text, MAX_OUTPUT_CHARS)}\n[output cut: the whole output is ${Buffer.byteLength(text, 'utf8')} bytes${where}; only the first ${MAX_OUTPUT_CHARS} characters are shown]`;
}
