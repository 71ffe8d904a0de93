export { type CallCount, COUNTED_ARGUMENTS, countToolCall, isLongText, LONG_ARGUMENT_BYTES } from './call-costs.js';
export {
  type CutText,
  countTokens,
  cutToTokens,
  DEFAULT_CUT_MARKER,
  DROPPED_PLACEHOLDER,
  encoderFor,
  tokenMeter,
} from './count.js';
export { cutMarker, type HandlerOptions, makeSyncHandler, type Summariser } from './exact-answers.js';
export { modelEncoding } from './model.js';
