/**
 * Content-addressed storage for large text (docs/architecture.md#temporal-limits): the
 * workflow keeps a `BlobRef` (hash, size, preview) and activities fetch the
 * text. The interface is deliberately small, so an S3-compatible store can
 * implement it with PUT, GET and HEAD (names are objects of their own).
 */
import { createHash } from 'node:crypto';
import type { BlobRef, Content } from '../shapes/content.js';

export interface BlobStore {
  /** Stores the text (a no-op when it is already there) and returns its reference. */
  put(text: string): Promise<BlobRef>;
  /** The text for a hash; throws LevError `blob-missing` when absent. */
  get(hash: string): Promise<string>;
  has(hash: string): Promise<boolean>;
  /**
   * Names a stored blob, so any worker of the deployment finds it by `key`
   * (64 lowercase hex digits, itself a hash of what it stands for). A later
   * name for the same key wins. How the inference activity keeps an answer
   * it already paid for (docs/reference/long-runs.md#never-billed-twice).
   */
  name(key: string, hash: string): Promise<void>;
  /** The hash `key` names, or undefined. */
  named(key: string): Promise<string | undefined>;
}

/** What a blob name must look like: a hash. */
export const NAME_KEY = /^[0-9a-f]{64}$/;

/** Text up to this many UTF-8 bytes stays inline in the entry. */
export const INLINE_LIMIT_BYTES = 2048;
export const PREVIEW_CHARS = 200;

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The first 200 characters, never splitting a surrogate pair. */
export function previewOf(text: string): string {
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === PREVIEW_CHARS) break;
    out += ch;
    count++;
  }
  return out;
}

export function blobRef(text: string): BlobRef {
  return { hash: hashText(text), bytes: Buffer.byteLength(text, 'utf8'), preview: previewOf(text) };
}

export function isBlobRef(content: Content): content is BlobRef {
  return typeof content === 'object' && content !== null && typeof content.hash === 'string';
}

/** Small text inline, large text in the store. */
export async function toContent(store: BlobStore, text: string): Promise<Content> {
  if (Buffer.byteLength(text, 'utf8') <= INLINE_LIMIT_BYTES) return text;
  return store.put(text);
}

/** The whole text behind an entry's content, read from the store when it is a blob (the engine's `contentText` shows a blob's preview). */
export async function fullText(store: BlobStore, content: Content): Promise<string> {
  return isBlobRef(content) ? store.get(content.hash) : content;
}
