/**
 * Cross-version replay: the histories under `test/histories/<label>/`
 * were recorded by earlier versions of the workflow code (see
 * `scripts/record-histories.ts`) and are never rewritten. Each is replayed
 * against today's workflow bundle, so a change that would break a run
 * started before it fails here. A change that must alter a workflow's code
 * path keeps the old one behind `patched()`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { INLINE_WORKER } from '../../src/runtime/patches.js';
import { workflowSinks } from '../../src/telemetry/tracing.js';
import { patchIds } from './run-helpers.js';

const HISTORIES = join(import.meta.dirname, '..', 'histories');

interface Recorded {
  file: string;
  workflowId: string;
  history: temporal.api.history.v1.IHistory;
}

function recorded(dir: string): Recorded[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return recorded(path);
      if (!name.endsWith('.history.gz')) return [];
      const history = temporal.api.history.v1.History.decode(gunzipSync(readFileSync(path)));
      // A sub-agent's id holds `/`, which its file name carries percent-encoded.
      const workflowId = decodeURIComponent(name.slice(0, name.lastIndexOf('--')));
      return [{ file: path.slice(HISTORIES.length + 1), workflowId, history }];
    });
}

describe('histories recorded by earlier versions', () => {
  const all = recorded(HISTORIES);

  it('include a demo run and a gate, seed and compaction scenario, each with its stage visits', () => {
    const ids = all.map((r) => r.workflowId);
    const visit = /\.\d+\.[a-z_]+$/;
    expect(ids.some((id) => id.startsWith('demo-') && !visit.test(id))).toBe(true);
    expect(ids.some((id) => id.startsWith('demo-') && id.endsWith('.report'))).toBe(true);
    expect(ids.some((id) => id.startsWith('gates-seeds-') && !visit.test(id))).toBe(true);
    expect(ids.filter((id) => id.startsWith('gates-seeds-') && id.endsWith('.gather')).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('include a fan-out with its workers and an attended run steered by every update', () => {
    const ids = all.map((r) => r.workflowId);
    const visit = /\.\d+\.[a-z_]+$/;
    const workers = ids.filter((id) => id.startsWith('reviewer-') && id.includes('/') && !visit.test(id));
    expect(workers.length).toBeGreaterThanOrEqual(2);
    expect(ids.some((id) => id.startsWith('reviewer-') && id.includes('/') && id.endsWith('.review_file'))).toBe(true);
    const steered = all.find((r) => r.workflowId.startsWith('operators-') && !visit.test(r.workflowId));
    const updates = (steered?.history.events ?? []).flatMap((e) => {
      const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return name ? [name] : [];
    });
    for (const name of ['approve', 'deny', 'answer', 'message', 'pause', 'resume']) expect(updates).toContain(name);
  });

  it('include fan-out workers that ran their stage visits inside their own run', () => {
    const inline = all.filter((r) => r.workflowId.includes('/') && patchIds(r.history).includes(INLINE_WORKER));
    expect(inline.length).toBeGreaterThanOrEqual(2);
    // Such a worker started no visit workflow: no recorded id continues its own with a visit.
    for (const worker of inline) expect(all.some((r) => r.workflowId.startsWith(`${worker.workflowId}.`))).toBe(false);
  });

  it('replay against the current workflow code without a nondeterminism error', async () => {
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSinks() },
      all.map(({ workflowId, history }) => ({ workflowId, history })),
    )) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(all.length);
  });
});
