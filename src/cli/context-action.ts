/**
 * What `lev context <run>` does (docs/reference/cli.md#lev-context): the window's history,
 * a line per turn with the window by region after its reply, read from the run's event
 * stream; and with `--turn N` the window turn N read, rebuilt as its inference rebuilt
 * it: the snapshot and operations its `infer` activity was scheduled with (in the run's
 * histories, read as `lev fork` reads them) replayed over the blueprint and snapshot in
 * the blob store, and rendered with every blob resolved. Nothing is added to any history.
 */
import type { Client } from '@temporalio/client';
import { windowUsed } from '../context/state.js';
import { LevError } from '../errors.js';
import { renderedRequest } from '../runtime/node/inference.js';
import { defaultRuntimeConfig, RunStore } from '../runtime/node/run-store.js';
import type { RegionTokens, RunEvent } from '../shapes/run-events.js';
import { type RunInference, type RunRecord, readRun } from '../worker/run-history.js';
import { describeRun } from '../worker/runs.js';
import { withClient } from './connect.js';
import { type MessageView, messageView, type RegionView, regionView } from './simulate/output.js';
import { promptLines, regionLines } from './simulate/readable.js';
import { runEvents } from './stages-action.js';

/** The options of `lev context <run>` (declared in `commands/context.ts`). */
export interface ContextFlags {
  address: string;
  namespace: string;
  json?: boolean;
  turn?: number;
}

/** A turn's window after its reply, as its `turn-ended` event has it. */
export interface WindowPoint {
  turn: number;
  stage: string;
  /** Workflow time (ms). */
  time: number;
  model?: string;
  window: { used: number; max: number; regions: RegionTokens[] };
}

/** The window's history: a point per turn the stream still keeps, from offset `from` on. */
export interface WindowHistory {
  turns: WindowPoint[];
  from: number;
}

export function windowHistory(events: readonly RunEvent[]): WindowHistory {
  const turns: WindowPoint[] = [];
  for (const e of events)
    if (e.kind === 'turn-ended')
      turns.push({
        turn: e.turn,
        stage: e.stage,
        time: e.time,
        ...(e.model ? { model: e.model } : {}),
        window: e.window,
      });
  return { turns, from: events[0]?.offset ?? 0 };
}

/** A line per turn: its stage, the window's fill, and each region's tokens (of its budget). */
export function formatHistory(history: WindowHistory): string {
  const lines = history.turns.map((p) => {
    const regions = p.window.regions
      .map((r) => `${r.region} ${r.tokens}${r.budget !== undefined ? `/${r.budget}` : ''}`)
      .join(', ');
    return `turn ${p.turn} [${p.stage}] window ${p.window.used}/${p.window.max}: ${regions}`;
  });
  if (lines.length === 0) lines.push('no turn has ended yet');
  if (history.from > 0)
    lines.push(
      `(the run no longer keeps its events before offset ${history.from}: earlier turns are missing here, but \`--turn N\` rebuilds any turn from the run's histories)`,
    );
  return lines.join('\n');
}

/** The window one turn read: its regions and the prompt rendered from them. */
export interface WindowAt {
  runId: string;
  turn: number;
  stage: string;
  /** The turn's place in its stage visit (0 for the visit's first). */
  stageTurn: number;
  /** `turn`, or `edge-choice`: the inference that chose the edge out of `stage`, between visits. */
  purpose: RunInference['input']['purpose'];
  /** The chain entry the window was rendered for (the first the stage would ask now). */
  model: string;
  window: { max: number; used: number; gap: number };
  regions: RegionView[];
  prompt: { system: string[]; messages: MessageView[] };
}

/** The inference of run-wide turn `turn` (the last try, when a model chain moved on), or `context-turn-unknown`. */
export function inferenceAt(record: Pick<RunRecord, 'inferences'>, turn: number, runId: string): RunInference {
  const found = record.inferences.filter((i) => i.input.turn === turn).at(-1);
  if (found) return found;
  const turns = [...new Set(record.inferences.map((i) => i.input.turn))].sort((a, b) => a - b);
  throw new LevError(
    'context-turn-unknown',
    turns.length === 0
      ? `Run "${runId}" has made no inference yet; ask again once it has.`
      : `Run "${runId}" has no turn ${turn}; its histories hold turns ${turns[0]} to ${turns.at(-1)} (\`lev context ${runId}\` lists them).`,
  );
}

/** The window turn `turn` of `runId` read, rebuilt from its histories and the blob store this machine is configured with. */
export async function windowAt(client: Client, runId: string, turn: number, env = process.env): Promise<WindowAt> {
  const at = inferenceAt(await readRun(client, runId), turn, runId);
  const store = new RunStore({ ...defaultRuntimeConfig(env), activitySlots: 1 });
  try {
    const { state, model, system, messages } = await renderedRequest(store, at.input);
    return {
      runId,
      turn,
      stage: at.input.stage,
      stageTurn: at.input.stageTurn,
      purpose: at.input.purpose,
      model,
      window: { max: state.window.max, used: windowUsed(state), gap: state.window.gap },
      regions: state.regions.map(regionView),
      prompt: { system: system.map((b) => b.text), messages: messages.map(messageView) },
    };
  } catch (err) {
    if (!(err instanceof LevError) || err.code !== 'blob-missing') throw err;
    throw new LevError(
      'blob-missing',
      `Turn ${turn} of run "${runId}" cannot be rebuilt from this machine's blob store (${err.message}); run \`lev context\` with the blob store the run's workers use (LEVIATH_BLOB_DIR or LEVIATH_BLOBS).`,
    );
  } finally {
    const inner = store.blobs.inner as { close?: () => Promise<void> };
    await inner.close?.();
  }
}

/** The window at one turn, laid out as `lev context simulate` lays out its result. */
export function formatWindowAt(w: WindowAt): string {
  const what = w.purpose === 'turn' ? `its turn ${w.stageTurn}` : `choosing the edge out of it`;
  return [
    `Run ${w.runId}, turn ${w.turn}: stage ${w.stage} (${what}), model ${w.model}`,
    `Window: ${w.window.used} of ${w.window.max} tokens used, calibration gap ${w.window.gap}`,
    '',
    ...regionLines(w.regions),
    '',
    ...promptLines(w.prompt),
  ].join('\n');
}

export async function printContext(runId: string, flags: ContextFlags): Promise<void> {
  await withClient(flags, async (client) => {
    await describeRun(client, runId, flags.address);
    if (flags.turn !== undefined) {
      const w = await windowAt(client, runId, flags.turn);
      process.stdout.write(flags.json ? `${JSON.stringify(w)}\n` : `${formatWindowAt(w)}\n`);
      return;
    }
    const history = windowHistory(await runEvents(client, runId));
    process.stdout.write(flags.json ? `${JSON.stringify({ runId, ...history })}\n` : `${formatHistory(history)}\n`);
  });
}
