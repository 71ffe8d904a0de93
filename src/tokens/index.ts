export { countTokens, cutToTokens, encoderFor, DEFAULT_CUT_MARKER, DROPPED_PLACEHOLDER, type CutText } from './count.js';
export { cutMarker, makeSyncHandler, type HandlerOptions, type Summariser } from './handler.js';
export { modelEncoding } from './model.js';
