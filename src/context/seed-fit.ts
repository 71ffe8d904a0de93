/**
 * Placing resolved seed texts into their region (docs/reference/seeds.md#fitting and docs/reference/seeds.md#refresh):
 * written in order into the room left; the first that does not fit is cut to the room with a marker naming how many
 * later entries were left out. Checklist seeds become one open item per non-empty line.
 */

import type { CountedText, Entry, RegionState } from '../shapes/content.js';
import { callOnWrite, type EngineEnv, hooksFor } from './kinds/custom.js';
import { behaviourOf } from './kinds/index.js';
import { contentText, regionTokens } from './measure.js';
import { count, cut, type EngineOp } from './requests.js';
import { addDiagnostic, cloneData, commitState, type RunState } from './state.js';
import { stampEntry, unknownRegion } from './write.js';
import type { Failure } from './write-failures.js';

export interface SeedText extends CountedText {
  key?: string;
}

export interface SeedSuccess {
  ok: true;
  region: string;
  written: Entry[];
  /** True when the last written entry was cut to fit. */
  cut: boolean;
  /** Seed texts (or checklist lines) not written because the region was full. */
  leftOut: number;
  /** Earlier seeded entries replaced by this seed. */
  replaced: Entry[];
}

export type SeedResult = SeedSuccess | Failure;

/** Splits checklist seeds into one text per non-empty line, each counted. */
function* checklistLines(texts: SeedText[]): EngineOp<SeedText[]> {
  const lines: SeedText[] = [];
  for (const t of texts) {
    const parts = contentText(t.content)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    // A one-line seed keeps the count it arrived with; only split text needs new counts.
    if (parts.length === 1 && typeof t.content === 'string') {
      lines.push({ content: parts[0]!, tokens: t.tokens });
      continue;
    }
    for (const line of parts) lines.push({ content: line, tokens: yield* count(line) });
  }
  return lines;
}

/** Runs custom regions' `on_write` over the seeds (docs/reference/seeds.md#forms). */
function* throughOnWrite(
  state: RunState,
  region: RegionState,
  texts: SeedText[],
  env: EngineEnv,
): EngineOp<SeedText[]> {
  const hooks = hooksFor(env, region);
  if (!hooks) return texts;
  const kept: SeedText[] = [];
  for (const t of texts) {
    const verdict = callOnWrite(hooks, region, { content: t.content, kind: 'text', key: t.key, tokens: t.tokens });
    if (verdict.action === 'decline') continue;
    if (verdict.action === 'failed')
      addDiagnostic(state, 'custom-script-failed', 'warning', `region "${region.name}" on_write: ${verdict.error}`);
    if (verdict.action === 'replace')
      kept.push({ ...t, content: verdict.content, tokens: yield* count(verdict.content) });
    else kept.push(t);
  }
  return kept;
}

/**
 * Writes seed texts into `regionName`. With `replaceSeeded`, earlier seeded
 * entries are replaced and the region's other entries stay. Seeds are not
 * updates (docs/reference/stages.md#gates) and never evict.
 */
export function* seedRegion(
  state: RunState,
  regionName: string,
  texts: SeedText[],
  env: EngineEnv,
  opts: { replaceSeeded: boolean },
): EngineOp<SeedResult> {
  const draft = cloneData(state);
  const region = draft.regions.find((r) => r.name === regionName);
  if (!region) return unknownRegion(state, regionName);
  const replaced = opts.replaceSeeded ? region.entries.filter((e) => e.seeded) : [];
  if (opts.replaceSeeded) region.entries = region.entries.filter((e) => !e.seeded);

  let queue = yield* throughOnWrite(draft, region, texts, env);
  const isChecklist = behaviourOf(region).entries === 'items';
  if (isChecklist) queue = yield* checklistLines(queue);
  if (behaviourOf(region).entries === 'keyed') {
    const keys = new Set(queue.flatMap((t) => (t.key === undefined ? [] : [t.key])));
    region.entries = region.entries.filter((e) => e.key === undefined || !keys.has(e.key));
  }

  const written: Entry[] = [];
  let wasCut = false;
  let leftOut = 0;
  for (let i = 0; i < queue.length; i++) {
    const text = queue[i]!;
    const room = region.budget - regionTokens(region);
    let fitted: CountedText = text;
    if (text.tokens > room) {
      leftOut = queue.length - i - 1;
      if (room <= 0) {
        leftOut += 1;
        break;
      }
      const marker = `seed exceeded the region's budget; ${leftOut} later ${leftOut === 1 ? 'entry' : 'entries'} left out`;
      fitted = yield* cut(text.content, text.tokens, room, marker);
      if (fitted.tokens > room) {
        leftOut += 1;
        break;
      }
      wasCut = true;
    }
    const entry = stampEntry(draft, { content: fitted.content, tokens: fitted.tokens, seeded: true }, env);
    if (text.key !== undefined) entry.key = text.key;
    if (isChecklist) {
      entry.checklist = { id: region.nextItemId, done: false, noteTokens: 0 };
      region.nextItemId += 1;
    }
    region.entries.push(entry);
    written.push(entry);
    if (wasCut) break;
  }
  commitState(state, draft);
  return { ok: true, region: regionName, written, cut: wasCut, leftOut, replaced };
}
