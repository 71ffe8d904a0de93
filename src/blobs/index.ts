export { LocalBlobStore } from './local.js';
export {
  type BlobStore,
  blobRef,
  fullText,
  hashText,
  INLINE_LIMIT_BYTES,
  isBlobRef,
  PREVIEW_CHARS,
  previewOf,
  toContent,
} from './store.js';
