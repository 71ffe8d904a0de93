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
} from './blob-store.js';
export { collectBlobs, type GcReport, parseAge } from './gc.js';
export { LocalBlobStore } from './local.js';
export { type BlobSpec, openBlobStore, parseBlobSpec } from './open.js';
export { PostgresBlobStore, redactUrl } from './postgres.js';
export { currentBlobRun, withBlobRun } from './run-scope.js';
