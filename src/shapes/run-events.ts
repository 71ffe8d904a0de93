/**
 * The one home of a run's event stream (docs/reference/events.md): the
 * durable events a run's workflows keep in their state and answer through
 * the `events` query, each with its place in the run's offset space, the
 * page a query answers, and the token deltas that never reach history. The
 * workflows write these, `src/stream/subscribe.ts` reads them, and
 * `lev events` and `lev serve` print them; a new kind is added to
 * `EVENT_KINDS` and `EventBodies` here and nowhere else. Plain data on the
 * ground floor, so every floor may import it.
 */

/** The schema version every event carries; a change of shape that breaks a reader raises it. */
export const EVENTS_VERSION = 1;

/** A region's share of the window when a turn ends. */
export interface RegionTokens {
  region: string;
  tokens: number;
  /** Its budget in tokens, where it has one. */
  budget?: number;
}

/** Tokens of a turn, or of the turns of a visit. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What each durable event kind carries besides the fields every event has. */
export interface EventBodies {
  /** A stage visit began (or began again after a gate sent it back). */
  'stage-entered': { stage: string; visit: number };
  /**
   * A stage visit ended: `end` is how (`completed`, `stuck`, `error`, ...); with what it spent, its
   * sub-agents' apart (absent in streams of earlier versions): its turns, their usage and their cost
   * at the stage's model's prices (absent when it has none).
   */
  'stage-left': {
    stage: string;
    visit: number;
    end: string;
    turns?: number;
    usage?: TurnUsage;
    cost?: number;
  };
  /** An inference is about to be asked for; its text arrives as `text` deltas on the token channel. */
  'turn-started': { stage: string; turn: number };
  /** A reply is stored: the window by region after it, the turn's usage, cost and cache use. */
  'turn-ended': {
    stage: string;
    turn: number;
    model?: string;
    /** The first characters of the reply's text (the whole text is the model's, in the region set). */
    preview: string;
    calls: number;
    window: { used: number; max: number; regions: RegionTokens[] };
    usage: TurnUsage;
    /** Estimated dollars of this turn alone; absent when the model has no price. */
    cost?: number;
  };
  /** The model called a tool: `subject` is the short form the details show (`read_file src/a.ts`). */
  'tool-call': { stage: string; turn: number; call: string; tool: string; subject: string };
  /** A call was answered: a summary, and the blob of the whole result when it is stored. */
  'tool-result': {
    stage: string;
    turn: number;
    call: string;
    tool: string;
    ok: boolean;
    summary: string;
    tokens?: number;
    blob?: string;
  };
  /**
   * A tool, a seed or the runtime wrote to a region other than the conversation (whose writes are
   * the turns and tool results): the entries written or rewritten by one operation, their tokens,
   * and the key and a preview of the last of them, never its whole text.
   */
  'region-write': { region: string; tokens: number; entries: number; key?: string; preview: string };
  /**
   * Entries left a region to keep it within budget: `cause` is what shed them (`write`: a write
   * made room, `cascade`: the window made room for the reply, `stage-entry`: a stage gave the
   * region a smaller budget, `fold-failure`: pending entries a fold kept failing on were dropped).
   */
  evicted: { region: string; entries: number; tokens: number; cause: string };
  /**
   * Entries of a region were folded into a summary: `tokens` before, `summaryTokens` after; a fold
   * that failed keeps its entries (`ok: false`, `error`).
   */
  folded: { region: string; entries: number; tokens: number; ok: boolean; summaryTokens?: number; error?: string };
  /** A gate of a stage was checked as the stage wanted to leave. */
  gate: { stage: string; gate: string; passed: boolean; detail?: string };
  /**
   * The run began to wait for something outside it: `wait` is what the progress query calls it
   * (`approval`, `answer`, `checkpoint`, `message`, `resume`, `tool-worker-missing`,
   * `provider-unavailable`), `detail` what it waits on (the call, the question, the model).
   */
  'wait-started': { wait: string; detail?: string };
  /** The wait ended: `ended` says how (`approved`, `denied`, `answered`, `timed-out`, `message`, `resumed`, `over`). */
  'wait-ended': { wait: string; ended: string };
  /** The workflow that writes the stream went on as new; the stream goes on without a gap. */
  continued: { workflow: 'run' | 'visit' };
  /** The run ended; nothing follows. */
  'run-ended': { status: string; code?: string };
}

/** The durable kinds, each with the sentence `lev events` and the reference describe it with. */
export const EVENT_KINDS: { readonly [K in keyof EventBodies]: string } = {
  'stage-entered': 'a stage visit began',
  'stage-left': 'a stage visit ended',
  'turn-started': 'an inference was asked for',
  'turn-ended': 'a reply was stored, with the window by region, usage, cost and cache use',
  'tool-call': 'the model called a tool',
  'tool-result': 'a tool call was answered (summarised; large results by blob reference)',
  'region-write': 'text was written to a region',
  evicted: 'entries left a region to keep it within budget',
  folded: 'entries of a region were folded into a summary',
  gate: 'a gate was checked, passed or blocked',
  'wait-started': 'the run began to wait (a person, a provider, its tool worker)',
  'wait-ended': 'a wait ended',
  continued: 'a workflow of the run went on as new, without a gap in the stream',
  'run-ended': 'the run ended',
};

export type EventKind = keyof EventBodies;

/** One durable event: its kind's body and the fields every event has. */
export type RunEvent = {
  [K in EventKind]: {
    v: typeof EVENTS_VERSION;
    kind: K;
    /** Its offset in the run's stream: consecutive, from 0, across continue-as-new and stage visits. */
    offset: number;
    /** Workflow time (ms since the epoch) when it happened. */
    time: number;
  } & EventBodies[K];
}[EventKind];

/** An event as a workflow writes it, before its log gives it an offset. */
export type NewEvent = {
  [K in EventKind]: { kind: K; time: number } & EventBodies[K];
}[EventKind];

/**
 * Text of the model's reply as it arrives (the token channel): not durable and
 * without an offset. `at` is the character offset of `text` in the turn's reply,
 * so a reader that missed a delta sees the hole and one that saw it twice skips it.
 */
export interface TextDelta {
  kind: 'text';
  /** The run-wide turn (inference ordinal) the text belongs to. */
  turn: number;
  at: number;
  text: string;
}

/** What a subscriber yields: durable events in offset order, with token deltas between them. */
export type StreamItem = RunEvent | TextDelta;

/** What the `events` query is asked: events from this offset on (the oldest kept when absent). */
export interface EventsAsk {
  from?: number;
}

/** What the `events` query answers. */
export interface EventsPage {
  v: typeof EVENTS_VERSION;
  /** Events from the offset asked (or from `base`, when older ones are gone), in offset order. */
  events: RunEvent[];
  /** The offset of the event after the last one answered: ask from it next. */
  next: number;
  /** The oldest offset this workflow still keeps; older ones were dropped (the log is bounded). */
  base: number;
  /**
   * Where events from `next` on are kept instead: a stage visit the run runs as a child workflow,
   * with the offset to ask it from. A subscriber follows it there, and back when it ends.
   */
  follow?: { workflowId: string; from: number };
  /** No event will follow from this workflow: it ended, or it handed its stream over. */
  done: boolean;
}

/** Offsets a stage visit of the run holds: from `from` up to `to` (absent while it runs). */
export interface AwayRange {
  workflowId: string;
  from: number;
  to?: number;
}

/** What a log carries across continue-as-new, and what a visit starts from: plain data, bounded. */
export interface LogCarry {
  /** The offset the next event takes. */
  next: number;
  /** The newest events kept, oldest first. */
  tail: RunEvent[];
  /** Ranges held by visits, newest last; only those that reach into the tail or are open. */
  away?: AwayRange[];
}

/**
 * What an inference activity heartbeats while its reply streams (the token
 * channel): the turn, and the reply's text so far. Heartbeat details live in
 * the server's mutable state, not in history (docs/reference/events.md#the-token-channel).
 */
export interface StreamBeat {
  turn: number;
  text: string;
}
