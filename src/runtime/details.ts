/**
 * What the Temporal Web UI shows of a run (docs/reference/operators.md#user-metadata):
 * the static summary and details set at start, and the Markdown of the
 * current details the run and each stage visit rewrite after every turn,
 * built from the same `Progress` the `progress` query answers. Also the
 * cost estimate from the model table's prices. Pure: imported by workflow
 * code.
 */

import { formatDuration } from '../blueprint/duration.js';
import type { Content } from '../shapes/content.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { clipUnits, cutBytes } from '../truncate.js';
import { answerArguments, answerJson } from './people/asks.js';
import { toolWorkerCommand } from './tool-queue.js';
import type { CostEstimate, ForkOrigin, PendingAsk, Progress, ProviderWait, RegionBar, UsageTotals } from './types.js';

/** The static summary's limit, in bytes of UTF-8. */
export const SUMMARY_BYTES = 200;
/** Characters of the bar that shows a region's fill. */
export const BAR_WIDTH = 20;

/** `<blueprint>: <title>`, else `<blueprint>: <first line of the task>`, at most 200 bytes. */
export function staticSummary(agent: string, task: string | undefined, title?: string): string {
  const line = title ?? (task ?? '').trim().split('\n')[0]?.trim() ?? '';
  return cutBytes(line ? `${agent}: ${line}` : agent, SUMMARY_BYTES);
}

/** The turn a fork starts after, as people read it: `turn 4`, or `turn 2 of stage "build"`. */
export function forkTurn(from: Pick<ForkOrigin, 'turn' | 'stage'>): string {
  return from.stage === undefined ? `turn ${from.turn}` : `turn ${from.turn} of stage "${from.stage}"`;
}

/** A stage visit's static summary. */
export function visitSummary(stage: string, visit: number, runId: string): string {
  return cutBytes(`${stage}: visit ${visit} of ${runId}`, SUMMARY_BYTES);
}

/** Markdown of what a run was started with: task, models, workdir, attended. */
export function staticDetails(input: {
  blueprint: Blueprint;
  task?: string;
  workdir: string;
  unattended: boolean;
  askTimeoutSecs: number;
  /** A fork's origin (docs/reference/cluster-runs.md#fork). */
  forkedFrom?: ForkOrigin;
}): string {
  const task = (input.task ?? '').trim();
  const shown = task.length > 2000 ? `${task.slice(0, 2000)}…` : task;
  const models = input.blueprint.stages.map((s) => `| ${cell(s.name)} | \`${s.models?.join(' → ') ?? s.model}\` |`);
  const from = input.forkedFrom;
  return [
    `**Blueprint** \`${input.blueprint.agent.name}\``,
    '',
    ...(from ? [`**Fork** of \`${from.runId}\` after ${forkTurn(from)}`, ''] : []),
    shown ? `**Task**\n\n${quote(shown)}` : '**Task**: none',
    '',
    '| Stage | Model |',
    '|---|---|',
    ...models,
    '',
    `**Workdir** \`${input.workdir}\``,
    '',
    input.unattended
      ? '**Unattended**: `ask` permissions are refused.'
      : `**Attended**: \`ask\` calls wait for \`approve\`/\`deny\` (ask_timeout ${formatDuration(input.askTimeoutSecs)}).`,
  ].join('\n');
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function thousands(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A 20-character bar: one `█` per 5 % of the budget, `░` for the rest; a region over budget is all `█`. */
export function fillBar(tokens: number, budget: number, width = BAR_WIDTH): string {
  const ratio = budget > 0 ? tokens / budget : tokens > 0 ? 1 : 0;
  const full = Math.min(width, Math.max(0, Math.round(ratio * width)));
  return '█'.repeat(full) + '░'.repeat(width - full);
}

/** `$0.00`, `$0.0042` below a cent, `$1.25`: how a cost estimate prints. */
export function dollars(usd: number): string {
  if (usd === 0) return '$0.00';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** The cost line of the details. */
export function costLine(cost: CostEstimate): string {
  if (cost.usd === null)
    return cost.unpriced.length > 0
      ? `**Estimated cost**: unknown (no prices for ${cost.unpriced.map((m) => `\`${m}\``).join(', ')} in the model table)`
      : '**Estimated cost**: $0.00 (no model calls yet)';
  const left =
    cost.unpriced.length > 0
      ? `; ${cost.unpriced.map((m) => `\`${m}\``).join(', ')} not priced (no prices in the model table)`
      : '';
  return `**Estimated cost**: ${dollars(cost.usd)} at list prices of ${cost.priced.map((m) => `\`${m}\``).join(', ')}${left}`;
}

function usageLine(u: UsageTotals, scope: string): string {
  const cached = u.cacheReadTokens > 0 ? ` (${thousands(u.cacheReadTokens)} cached)` : '';
  return `**Usage** (${scope}): ${u.calls} model call${u.calls === 1 ? '' : 's'} · ${thousands(u.promptTokens)} prompt tokens${cached} · ${thousands(u.completionTokens)} completion tokens`;
}

function regionTable(regions: readonly RegionBar[], window: Progress['window']): string[] {
  return [
    '| Region | Kind | Tokens / budget | Fill | Entries |',
    '|---|---|---:|---|---:|',
    ...regions.map(
      (r) =>
        `| ${cell(r.name)} | ${r.kind} | ${thousands(r.tokens)} / ${thousands(r.budget)} | \`${fillBar(r.tokens, r.budget)}\` | ${r.entries} |`,
    ),
    '',
    `Window: ${thousands(window.used)} / ${thousands(window.max)} tokens`,
  ];
}

/** `YYYY-MM-DD HH:MM UTC` of a workflow time in ms, by calendar arithmetic (the engine reads no clock objects). */
export function utcMinute(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const ofDay = minutes - days * 1440;
  // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${year}-${two(month)}-${two(day)} ${two(Math.floor(ofDay / 60))}:${two(ofDay % 60)} UTC`;
}

/** What the run waits for, with the command that answers each wait. */
export function waitingLines(
  p: Pick<Progress, 'runId' | 'asks' | 'waiting' | 'paused' | 'toolWorker' | 'provider'>,
): string[] {
  const lines: string[] = [];
  for (const ask of p.asks) lines.push(askLine(p.runId, ask));
  if (p.waiting === 'message')
    lines.push(`**Waiting for** a reply: \`lev msg ${p.runId} "…"\` (\`/done\` ends the stage).`);
  const away = p.toolWorker;
  if (away)
    lines.push(
      `**Waiting for** a tool worker (\`tool-worker-missing\`): none has polled task queue \`${away.taskQueue}\` since ${utcMinute(away.since)}; start \`${toolWorkerCommand(away.workdir, away.taskQueue)}\` where the workdir is, or the run fails at ${utcMinute(away.failsAt)} (\`[run] tool_worker_patience\`).`,
    );
  if (p.paused) lines.push(`**Paused**: \`lev resume ${p.runId}\` goes on.`);
  if (p.provider) lines.push(`**Waiting for** ${providerWaitText(p.provider)}.`);
  return lines;
}

/**
 * A provider outage as the details and `lev show` say it: the provider, since when, its error,
 * and when the run gives up (docs/reference/long-runs.md#provider-outages).
 */
export function providerWaitText(w: ProviderWait): string {
  return `the provider \`${w.provider}\` (\`${w.model}\`), unavailable since ${utcMinute(w.since)}: ${w.error} It tries again by itself, at least every two minutes, and fails with \`provider-unavailable\` at ${utcMinute(w.giveUpAt)}`;
}

function askLine(runId: string, ask: PendingAsk): string {
  if (ask.kind === 'approval')
    return `**Waiting for** approval of \`${ask.subject}\` (call \`${ask.call}\`, until ${utcMinute(ask.deadline)}): \`lev approve ${runId} ${ask.call}\` or \`lev deny ${runId} ${ask.call} --note "…"\`.`;
  if (ask.form === undefined && ask.point === undefined)
    return `**Waiting for** an answer (call \`${ask.call}\`, until ${utcMinute(ask.deadline)}): ${ask.subject} — \`lev answer ${runId} ${ask.call} "…"\`.`;
  // A question in another form says what it takes, and the update that answers it from the Web UI.
  const what = ask.point !== undefined ? `checkpoint \`${ask.point}\`` : `\`${ask.tool}\``;
  const options = ask.options?.length ? ` Options: ${ask.options.map((o, i) => `${i + 1}. ${o}`).join(' · ')}.` : '';
  const document = ask.document === undefined ? '' : `\n\n> ${documentPreview(ask.document).replace(/\n/g, '\n> ')}`;
  return `**Waiting for** an answer at ${what} (call \`${ask.call}\`, until ${utcMinute(ask.deadline)}): ${ask.subject}${options} — \`lev answer ${runId} ${ask.call} ${answerArguments(ask)}\`, or the update \`answer\` with \`${answerJson(ask)}\`.${document}`;
}

/** The start of the document a question is about, as the details show it. */
function documentPreview(document: Content): string {
  return typeof document === 'string' ? clipUnits(document, 600) : `${document.preview}…`;
}

function gateLine(p: Progress): string {
  const forced =
    p.gatesForced.length > 0
      ? `; forced in the run: ${p.gatesForced.map((g) => `${g.stage}→${g.target ?? 'end'} (${g.check})`).join(', ')}`
      : '';
  return `**Gates**: ${p.gates.attempts} completion attempt${p.gates.attempts === 1 ? '' : 's'} in this visit, ${p.gates.blocked} blocked${forced}`;
}

function callsLine(p: Progress): string {
  if (p.recentCalls.length === 0) return '**Last tool calls**: none yet';
  return `**Last tool calls**: ${p.recentCalls.map((c) => `\`${c.subject.replace(/`/g, "'")}\` ${c.ok ? '✓' : '✗'}`).join(' · ')}`;
}

/** Signals the workflow dropped for their shape (docs/reference/operators.md#rejected-messages): how many, and the last. */
export function rejectedLines(p: Pick<Progress, 'rejected'>): string[] {
  const r = p.rejected;
  if (!r) return [];
  return [`**Dropped messages**: ${r.count}; the last: ${r.recent.at(-1)?.replace(/`/g, "'") ?? ''}`];
}

/** While a visit's sub-agents run: how many are queued, running, done and failed (docs/reference/sub-agents.md#watching-sub-agents). */
function workersLines(p: Progress): string[] {
  const w = p.workers;
  if (!w) return [];
  return [
    `**Workers**: ${w.running} running, ${w.queued} queued, ${w.done} done, ${w.failed} failed; list them with \`LeviathParent = "${p.runId}"\`.`,
  ];
}

/** A stage visit's current details (docs/reference/operators.md#current-details). */
export function stageDetails(p: Progress): string {
  return [
    `**${p.stage}** · turn ${p.visitTurns} (run inference ${p.inferences}) · ${p.status}`,
    ...waitingLines(p),
    ...workersLines(p),
    ...rejectedLines(p),
    ...(p.heldMessages > 0 ? [`**Held messages**: ${p.heldMessages} (this stage does not accept messages)`] : []),
    '',
    ...regionTable(p.regions, p.window),
    '',
    gateLine(p),
    '',
    callsLine(p),
    '',
    usageLine(p.usage, 'this visit'),
    '',
    costLine(p.cost),
  ].join('\n');
}

/** The run's current details: its status, where the live visit is, what it waits for, and the totals so far. */
export function runDetails(p: Progress, stages: readonly string[]): string {
  const live = p.stageWorkflowId
    ? `**Live stage**: **${p.stage}** in workflow \`${p.stageWorkflowId}\`; its details show each turn.`
    : `**Stage**: ${p.stage || '(none yet)'}`;
  return [
    `**Run** \`${p.runId}\` · ${p.status} · ${p.inferences} inference${p.inferences === 1 ? '' : 's'}`,
    live,
    ...waitingLines(p),
    ...rejectedLines(p),
    ...(p.heldMessages > 0 ? [`**Held messages**: ${p.heldMessages}, for the next stage that accepts messages`] : []),
    '',
    `**Stages**: ${stages.join(' → ') || '(none yet)'}`,
    '',
    usageLine(p.usage, p.finishedVisits ? "the run, as of the live visit's last report" : 'finished visits'),
    '',
    costLine(p.cost),
    '',
    p.reportedAt !== undefined
      ? `Regions as of turn ${p.visitTurns} of the live visit (its last report):`
      : 'Regions as of the last finished visit:',
    '',
    ...regionTable(p.regions, p.window),
  ].join('\n');
}
