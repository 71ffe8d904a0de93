/**
 * Stored tool arguments read back (docs/reference/regions.md#stored-arguments): before a tool
 * runs a call and before a provider is shown an earlier turn's calls, every argument the
 * inference activity moved to the blob store is its text again.
 */
import type { BlobStore } from '../../blobs/index.js';
import type { BlobRef, ToolCall } from '../../context/index.js';

export async function expandArguments(store: BlobStore, call: ToolCall): Promise<ToolCall> {
  if (!call.blobArgs?.length) return call;
  const args = { ...call.arguments };
  for (const name of call.blobArgs) {
    const ref = args[name] as BlobRef | undefined;
    if (ref && typeof ref === 'object') args[name] = await store.get(ref.hash);
  }
  const { blobArgs: _expanded, ...rest } = call;
  return { ...rest, arguments: args };
}
