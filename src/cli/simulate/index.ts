export { formatDiagnostic, type SimulateOptions, type SimulateResult, simulate } from './driver.js';
export { EVENT_OPS, parseEvents, type SimEvent } from './events.js';
export type { EventResult, SimOutput } from './output.js';
export { formatReport } from './readable.js';
