/**
 * The per-stage ledger `lev stages` prints (docs/reference/cli.md#lev-stages): one row per
 * stage visit, read from the run's event stream alone. A visit's `stage-left` says what it
 * spent (turns, usage, cost at its stage model's prices); a visit still running, or one
 * a stream of an earlier version left without them, is counted from its `turn-ended`
 * events instead. The stage entered next is the visit's transition; the run's end
 * follows the last. Pure.
 */
import type { RunEvent, TurnUsage } from '../shapes/run-events.js';

/** One stage visit of the run. */
export interface LedgerVisit {
  /** The run's visit ordinal, as `stage-entered` numbers it. */
  visit: number;
  stage: string;
  /** Workflow time (ms) it began; null when its start is older than the stream still keeps. */
  startedAt: number | null;
  /** Workflow time (ms) it ended; null while it runs. */
  endedAt: number | null;
  turns: number;
  usage: TurnUsage;
  /** Estimated dollars; null when no price is known. */
  cost: number | null;
  /** How it ended (`completed`, `max_iterations`, `error`, `stuck`, `cancelled`); null while it runs. */
  end: string | null;
  /** Its completion checks: passed, and blocked (each block runs the stage again). */
  gates: { passed: number; blocked: number };
  /** The stage the run entered after it; null for the last visit. */
  next: string | null;
}

export interface StageLedger {
  visits: LedgerVisit[];
  total: { turns: number; usage: TurnUsage; cost: number | null };
  /** How the run ended, once it has. */
  runEnded: { status: string; code?: string } | null;
  /**
   * The first offset read: above 0 when the run no longer keeps its oldest events
   * (docs/reference/events.md#offsets), so visits before it are missing.
   */
  from: number;
}

const noUsage = (): TurnUsage => ({ promptTokens: 0, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

function add(a: TurnUsage, b: TurnUsage): TurnUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

const addCost = (a: number | null, b: number | null | undefined): number | null =>
  b === undefined || b === null ? a : (a ?? 0) + b;

/** What a row's events add up to, by the visit's own report and by its turns. */
interface Tally {
  row: LedgerVisit;
  reported: { turns: number; usage: TurnUsage; cost: number | null } | undefined;
  counted: { turns: number; usage: TurnUsage; cost: number | null };
}

/** The ledger of the events of a run's stream, oldest first (as `subscribeRun` yields them). */
export function stageLedger(events: readonly RunEvent[]): StageLedger {
  const tallies: Tally[] = [];
  let runEnded: StageLedger['runEnded'] = null;
  const open = (stage: string, visit: number, startedAt: number | null): Tally => {
    const previous = tallies.at(-1);
    if (previous && previous.row.next === null) previous.row.next = stage;
    const tally: Tally = {
      row: {
        visit,
        stage,
        startedAt,
        endedAt: null,
        turns: 0,
        usage: noUsage(),
        cost: null,
        end: null,
        gates: { passed: 0, blocked: 0 },
        next: null,
      },
      reported: undefined,
      counted: { turns: 0, usage: noUsage(), cost: null },
    };
    tallies.push(tally);
    return tally;
  };
  // A visit whose `stage-entered` is gone still gets its row from what follows.
  const current = (stage: string, visit?: number): Tally => {
    const last = tallies.at(-1);
    if (last && last.row.stage === stage) {
      if (visit === undefined || last.row.visit === visit) return last;
      // A row made up from the turns of a visit whose start is gone takes its number from the visit's end.
      if (last.row.startedAt === null && last.row.end === null) {
        last.row.visit = visit;
        return last;
      }
    }
    return open(stage, visit ?? (last ? last.row.visit + 1 : 1), null);
  };
  for (const e of events) {
    switch (e.kind) {
      case 'stage-entered':
        open(e.stage, e.visit, e.time);
        break;
      case 'turn-ended': {
        const t = current(e.stage);
        t.counted = {
          turns: t.counted.turns + 1,
          usage: add(t.counted.usage, e.usage),
          cost: addCost(t.counted.cost, e.cost),
        };
        break;
      }
      case 'stage-left': {
        const t = current(e.stage, e.visit);
        t.row.endedAt = e.time;
        t.row.end = e.end;
        if (e.turns !== undefined && e.usage) {
          const r = t.reported ?? { turns: 0, usage: noUsage(), cost: null };
          t.reported = { turns: r.turns + e.turns, usage: add(r.usage, e.usage), cost: addCost(r.cost, e.cost) };
        }
        break;
      }
      case 'gate': {
        const t = current(e.stage);
        if (e.passed) t.row.gates.passed += 1;
        else t.row.gates.blocked += 1;
        break;
      }
      case 'run-ended':
        runEnded = { status: e.status, ...(e.code ? { code: e.code } : {}) };
        break;
    }
  }
  const visits = tallies.map(({ row, reported, counted }) => ({ ...row, ...(reported ?? counted) }));
  return {
    visits,
    total: {
      turns: visits.reduce((n, v) => n + v.turns, 0),
      usage: visits.reduce((u, v) => add(u, v.usage), noUsage()),
      cost: visits.reduce<number | null>((c, v) => addCost(c, v.cost), null),
    },
    runEnded,
    from: events[0]?.offset ?? 0,
  };
}
