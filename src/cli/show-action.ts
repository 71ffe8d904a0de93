/**
 * What `lev show` prints: one run's status, stage path, what it waits for,
 * usage, gates and region bars, or with `--json` the `RunView` object
 * (docs/reference/operators.md#lev-show).
 */
import { forkTurn } from '../runtime/details.js';
import { age } from '../worker/run-list.js';
import { type RunView, viewRun } from '../worker/runs.js';
import { taskFailingLine } from '../worker/task-failures.js';
import { formatBars } from './bars.js';
import { withClient } from './connect.js';
import { formatCost } from './ps-action.js';

/** The options of `lev show` (declared in `commands/show.ts`). */
export interface ShowFlags {
  address: string;
  namespace: string;
  json?: boolean;
}

export function formatRun(v: RunView): string {
  const lines = [
    `Run ${v.runId}${v.blueprint ? ` (blueprint ${v.blueprint})` : ''}`,
    `Status:   ${v.status} (Temporal ${v.executionStatus}), started ${age(v.ageSeconds)} ago${v.live || v.executionStatus !== 'RUNNING' ? '' : v.taskFailures.length > 0 ? '; its workflow task keeps failing' : '; no worker answered'}`,
    ...v.taskFailures.map((f) => `Failing:  ${taskFailingLine(f, v.runId)}`),
  ];
  if (v.title) lines.push(`Title:    ${v.title}`);
  if (v.task) lines.push(`Task:     ${v.task}`);
  if (v.forkedFrom)
    lines.push(
      `Fork of:  ${v.forkedFrom.runId}, after ${forkTurn(v.forkedFrom)}${v.forkedFrom.model ? `, with model ${v.forkedFrom.model}` : ''}`,
    );
  if (v.stages.length > 0)
    lines.push(`Stages:   ${v.stages.join(' → ')}${v.executionStatus === 'RUNNING' ? ' (now)' : ''}`);
  if (v.executionStatus === 'RUNNING')
    lines.push(
      v.waitingFor.length > 0
        ? `Waiting:  ${v.waitingFor.map((w) => w.detail).join('; ')}`
        : 'Waiting:  nothing; it is working',
    );
  if (v.error) lines.push(`Error:    ${v.error}`);
  if (v.usage)
    lines.push(
      `Usage:    ${v.usage.calls} model call${v.usage.calls === 1 ? '' : 's'}, ${v.usage.promptTokens} prompt + ${v.usage.completionTokens} completion tokens (cache read ${v.usage.cacheReadTokens}, cache write ${v.usage.cacheWriteTokens}); cost ${v.costUsd === null ? 'unknown' : formatCost(v.costUsd)}`,
    );
  const attempts = v.gates
    ? `${v.gates.attempts} completion attempt${v.gates.attempts === 1 ? '' : 's'} in this visit, ${v.gates.blocked} blocked; `
    : '';
  lines.push(
    `Gates:    ${attempts}${v.gatesForced.length > 0 ? `forced ${v.gatesForced.map((g) => `${g.stage}→${g.target ?? 'end'} (${g.check})`).join(', ')}` : 'none forced'}`,
  );
  if (v.recentCalls.length > 0)
    lines.push(`Calls:    ${v.recentCalls.map((c) => `${c.subject} ${c.ok ? '✓' : '✗'}`).join(' · ')}`);
  if (v.rejected)
    lines.push(
      `Dropped:  ${v.rejected.count} malformed signal${v.rejected.count === 1 ? '' : 's'}; the last: ${v.rejected.recent.at(-1) ?? ''}`,
    );
  if (v.heldMessages > 0)
    lines.push(
      `Held:     ${v.heldMessages} message${v.heldMessages === 1 ? '' : 's'} for the next stage that accepts them`,
    );
  if (v.regions.length > 0) {
    lines.push(v.window ? `Regions:  window ${v.window.used}/${v.window.max} tokens` : 'Regions:');
    lines.push(formatBars(v.regions));
  }
  if (v.forks.length > 0)
    lines.push(
      `Forks:    ${v.forks.map((f) => `${f.runId} (after ${f.turn === null ? 'an unknown turn' : forkTurn({ turn: f.turn, ...(f.stage ? { stage: f.stage } : {}) })}, ${f.status})`).join(', ')}`,
    );
  if (v.output) lines.push(`Output (${v.output.format}):`, v.output.text);
  return lines.join('\n');
}

export async function printRun(runId: string, flags: ShowFlags): Promise<void> {
  await withClient(flags, async (client) => {
    const view = await viewRun(client, runId, flags.address);
    process.stdout.write(flags.json ? `${JSON.stringify(view)}\n` : `${formatRun(view)}\n`);
  });
}
