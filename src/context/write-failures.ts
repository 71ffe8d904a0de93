/**
 * The coded failures of writes and tools (docs/reference/regions.md#generic-write and docs/reference/context-tools.md).
 * Each says what happened with the numbers involved and what to do next.
 */
import type { RuntimeCode } from '../error-codes.js';
import type { RegionState } from '../shapes/content.js';

export interface Failure {
  ok: false;
  code: RuntimeCode;
  message: string;
}

export function failure(code: RuntimeCode, message: string): Failure {
  return { ok: false, code, message };
}

export function tooLarge(region: RegionState, tokens: number): Failure {
  return failure(
    'too-large',
    `the entry has ${tokens} tokens but region "${region.name}" has a budget of ${region.budget} tokens; write a shorter text or split it.`,
  );
}

export function regionFull(
  region: RegionState,
  used: number,
  max: number,
  unit: 'tokens' | 'items' | 'entries' = 'tokens',
  limitName?: string,
): Failure {
  const limit = limitName ? ` (${limitName} = ${max})` : '';
  return failure(
    'region-full',
    `region "${region.name}" is full (${used}/${max} ${unit} used${limit}); release an entry with context_delete first.`,
  );
}
