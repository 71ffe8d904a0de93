/**
 * The engine entry points the runtime records and replays (see `ops.ts`).
 * Pure: the workflow and the activities import the same object, so a
 * replayed operation runs exactly the code the workflow ran.
 */
import {
  addDiagnostic,
  applyContextTool,
  applyTransform,
  enterStage,
  evaluateGate,
  maintain,
  markForFold,
  recordUsage,
  seedRegion,
  writeEntry,
} from '../context/index.js';
import { routeToolResult } from '../context/routing.js';
import type { EngineCalls } from './ops.js';

export const ENGINE: EngineCalls = {
  enterStage,
  writeEntry,
  maintain,
  applyContextTool,
  routeToolResult,
  seedRegion,
  evaluateGate,
  applyTransform,
  markForFold,
  recordUsage,
  addDiagnostic,
};
