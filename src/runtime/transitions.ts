/**
 * Which edge a stage visit leaves by (SPEC 9.3). Pure: the agent-run
 * workflow calls it between stage visits.
 */
import type { Blueprint, EdgeDef, StageDef } from '../blueprint/types.js';
import type { RunState } from '../context/index.js';
import type { StageEnd } from './types.js';

export type Decision =
  | { kind: 'take'; edge: EdgeDef }
  | { kind: 'choose'; edges: EdgeDef[]; allowComplete: boolean }
  | { kind: 'end' }
  | { kind: 'continue' }
  | { kind: 'fail'; reason: string };

const NORMAL = new Set(['always', 'llm_choice']);

/** An edge is available while its target's revisits stay below the target's `max_revisits`. */
export function available(state: RunState, bp: Blueprint, edge: EdgeDef): boolean {
  const target = bp.stages.find((s) => s.name === edge.target);
  if (target?.maxRevisits === undefined) return true;
  const revisits = (state.visits[edge.target] ?? 0) - 1;
  return revisits < target.maxRevisits;
}

function byCondition(def: StageDef, condition: EdgeDef['condition']): EdgeDef | undefined {
  return def.transitions.find((t) => t.condition === condition);
}

function completion(state: RunState, bp: Blueprint, def: StageDef): Decision {
  const choosable = def.transitions.filter((t) => NORMAL.has(t.condition) && available(state, bp, t));
  if (choosable.length === 0) {
    if (!def.transitions.some((t) => NORMAL.has(t.condition))) return { kind: 'end' };
    const fallback = byCondition(def, 'dead_end') ?? byCondition(def, 'error');
    return fallback ? { kind: 'take', edge: fallback } : { kind: 'fail', reason: `stage "${def.name}" reached a dead end: every edge out of it has used up its revisits` };
  }
  if (choosable.length === 1 && !def.allowComplete) return { kind: 'take', edge: choosable[0]! };
  return { kind: 'choose', edges: choosable, allowComplete: def.allowComplete };
}

export function decide(state: RunState, bp: Blueprint, stage: string, end: StageEnd): Decision {
  const def = bp.stages.find((s) => s.name === stage);
  if (!def) return { kind: 'fail', reason: `no stage "${stage}"` };
  switch (end) {
    case 'completed':
      return completion(state, bp, def);
    case 'error': {
      const edge = byCondition(def, 'error') ?? byCondition(def, 'dead_end');
      return edge ? { kind: 'take', edge } : { kind: 'fail', reason: `stage "${def.name}" failed and has no error edge` };
    }
    case 'max_iterations': {
      const edge = byCondition(def, 'max_iterations');
      return edge ? { kind: 'take', edge } : completion(state, bp, def);
    }
    case 'stuck': {
      const edge = byCondition(def, 'stuck');
      return edge ? { kind: 'take', edge } : { kind: 'continue' };
    }
  }
}

/** Normal routes run the completion checks; error, stuck, cap and dead-end routes do not (SPEC 9.4). */
export function runsChecks(end: StageEnd, edge: EdgeDef | null): boolean {
  if (end === 'error' || end === 'stuck') return false;
  if (edge && !NORMAL.has(edge.condition)) return false;
  return true;
}

export const DONE = 'DONE';

/** The routing question shown to the model: one line per edge, plus DONE when it may finish. */
export function choiceQuestion(edges: EdgeDef[], allowComplete: boolean): string {
  const lines = edges.map((e) => `- ${e.target}${e.hint ? `: ${e.hint}` : ''}`);
  if (allowComplete) lines.push(`- ${DONE}: the work is complete; end the run`);
  return `Choose where to go next. Answer with exactly one of these names on the first line:\n${lines.join('\n')}`;
}

function wordMatch(line: string, options: string[]): string | undefined {
  const words = new Set(line.toLowerCase().split(/[^a-z0-9_-]+/).filter(Boolean));
  return options.find((o) => words.has(o.toLowerCase()));
}

/** Case-insensitive whole word on the first line, else on a last line of at most 3 words. */
export function matchChoice(reply: string, options: string[]): string | undefined {
  const lines = reply.split('\n').map((l) => l.trim()).filter(Boolean);
  const first = lines[0];
  if (first) {
    const hit = wordMatch(first, options);
    if (hit) return hit;
  }
  const last = lines.at(-1);
  if (last && last.split(/\s+/).length <= 3) return wordMatch(last, options);
  return undefined;
}
