/**
 * The one client-side reader of a run's stream (docs/reference/events.md):
 * durable events in offset order from the `events` query of the run and of
 * its live stage visit (following the run to the visit and back), and, when
 * asked, the model's text as it arrives, read from the heartbeat details of
 * the inference activity that is live (`DescribeWorkflowExecution`, decoded
 * through the client's data converter, so a codec key works). Neither costs
 * the run a history event. `lev events`, `lev attach`, `lev run` and
 * `lev serve` all read a run through it.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { eventsQuery } from '../runtime/messages.js';
import type { EventsPage, StreamBeat, StreamItem, TextDelta } from '../shapes/run-events.js';
import { decoded } from '../worker/run-history.js';

export interface SubscribeOptions {
  /** The first offset wanted; the oldest the run still keeps when absent (or when older ones are gone). */
  from?: number;
  /** Ends the subscription: the iterator returns at its next step. */
  signal?: AbortSignal;
  /** Also yield the model's text as it arrives (`kind: 'text'` items, without an offset). */
  tokens?: boolean;
  /** Stop at the end of what exists now instead of following the run until it ends. */
  follow?: boolean;
  /** How long to wait between asks when nothing new came (ms); 100 by default. */
  pollMs?: number;
}

/** The activity whose heartbeats carry the reply's text so far. */
const INFERENCE_ACTIVITY = 'infer';
/** The pace while something happens: after news, and while a turn's text streams to a reader of tokens. */
export const POLL_MS = 100;
/** The slowest pace a quiet run slows to, and the longest a reader of a live turn's text goes without asking for events. */
export const IDLE_POLL_MS = 1000;

/**
 * The wait before the next ask (docs/reference/events.md#reading-it-subscriberun): the base pace
 * after news or while a turn's text streams to the reader, else twice the last wait, up to
 * `IDLE_POLL_MS`. A run waiting for a person, a tool or a timer costs its readers a query a second.
 */
export function nextWait(last: number, news: boolean, streaming: boolean, base: number): number {
  if (news || streaming) return base;
  return Math.min(Math.max(last, base) * 2, Math.max(IDLE_POLL_MS, base));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The text so far of the inference each pending `infer` activity of a workflow heartbeats, and
 * whether one is pending at all (while it is, the turn has not ended).
 */
async function beatsOf(client: Client, workflowId: string): Promise<{ beats: StreamBeat[]; inferring: boolean }> {
  const described = await client.workflow.getHandle(workflowId).describe();
  const beats: StreamBeat[] = [];
  let inferring = false;
  for (const pending of described.raw.pendingActivities ?? []) {
    if (pending.activityType?.name !== INFERENCE_ACTIVITY) continue;
    inferring = true;
    const payload = pending.heartbeatDetails?.payloads?.[0];
    if (!payload) continue;
    const beat = await decoded<unknown>(client, payload).catch(() => undefined);
    if (isBeat(beat)) beats.push(beat);
  }
  return { beats, inferring };
}

/** A workflow's events from `from`; none (undefined) when a visit the run follows is not there yet. */
async function pageOf(
  client: Client,
  workflowId: string,
  from: number | undefined,
  followed: boolean,
): Promise<EventsPage | undefined> {
  try {
    return await client.workflow.getHandle(workflowId).query(eventsQuery, from === undefined ? {} : { from });
  } catch (err) {
    if (followed && err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

function isBeat(value: unknown): value is StreamBeat {
  const v = value as Partial<StreamBeat> | undefined;
  return typeof v === 'object' && v !== null && typeof v.turn === 'number' && typeof v.text === 'string';
}

/**
 * The text deltas a reader has not seen: `sent` holds the characters yielded per turn. A
 * retried attempt that starts its text again is yielded again from `at: 0`.
 */
export function deltasOf(beats: readonly StreamBeat[], sent: Map<number, string>, ended: number): TextDelta[] {
  const out: TextDelta[] = [];
  for (const beat of beats) {
    if (beat.turn <= ended) continue;
    const before = sent.get(beat.turn) ?? '';
    const at = beat.text.startsWith(before) ? before.length : 0;
    if (beat.text.length > at) out.push({ kind: 'text', turn: beat.turn, at, text: beat.text.slice(at) });
    sent.set(beat.turn, beat.text);
  }
  return out;
}

/**
 * A run's stream: its durable events in offset order, without gaps across continue-as-new
 * of the run and of its visits (older events than a workflow keeps are skipped: the first
 * yielded offset then exceeds `from`), and text deltas between them when `tokens` is set.
 * Ends when the run ended (after `run-ended`), when `signal` aborts, or, with `follow: false`,
 * at the end of what exists now.
 */
export async function* subscribeRun(
  client: Client,
  runId: string,
  options: SubscribeOptions = {},
): AsyncIterable<StreamItem> {
  const { signal } = options;
  const pollMs = options.pollMs ?? POLL_MS;
  /** The workflows followed, the run first; the last is asked. */
  const path = [runId];
  let from = options.from;
  const sent = new Map<number, string>();
  let ended = -1;
  /** A turn started and has not ended: its text streams, and with it pending, its end cannot have come. */
  let live = false;
  /** A reader that joins a workflow may have missed its turn's start: it looks once whether one is live. */
  let probe = true;
  let inferring = false;
  let askedAt = 0;
  let wait = pollMs;
  while (!signal?.aborted) {
    const target = path.at(-1)!;
    let news = false;
    // While the reader follows a live turn's text, the events query waits until its inference ends (or a second passed).
    if (!(options.tokens && live && inferring && Date.now() - askedAt < IDLE_POLL_MS)) {
      askedAt = Date.now();
      const page = await pageOf(client, target, from, path.length > 1);
      if (!page) {
        // The visit the run handed its stream to has not started yet: ask the run again shortly.
        path.pop();
        await pause(pollMs, signal);
        continue;
      }
      for (const event of page.events) {
        if (event.kind === 'turn-started') live = true;
        if (event.kind === 'turn-ended') {
          ended = Math.max(ended, event.turn);
          live = false;
        }
        yield event;
        if (event.kind === 'run-ended') return;
      }
      from = page.next;
      if (page.follow && page.follow.workflowId !== target) {
        path.push(page.follow.workflowId);
        from = page.follow.from;
        probe = true;
        continue;
      }
      if (page.events.length > 0) {
        wait = pollMs;
        continue;
      }
      if (page.done && path.length > 1) {
        // The visit ended or handed over: its run goes on from where it stopped (a handed-over
        // visit starts again under its id once the run went on as new, hence the pause).
        path.pop();
        live = false;
        await pause(pollMs, signal);
        continue;
      }
      if (page.done || options.follow === false) return;
    }
    if (options.tokens && (live || probe) && !signal?.aborted) {
      const beats = await beatsOf(client, target);
      inferring = beats.inferring;
      live ||= inferring;
      probe = false;
      for (const delta of deltasOf(beats.beats, sent, ended)) {
        news = true;
        yield delta;
      }
    } else inferring = false;
    wait = nextWait(wait, news, Boolean(options.tokens) && live, pollMs);
    await pause(wait, signal);
  }
}
