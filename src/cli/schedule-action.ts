/**
 * What `lev schedule` does (docs/reference/cluster-runs.md#schedules): each
 * schedule is a Temporal Schedule whose action starts `agentRunWorkflow`
 * with a run input by reference, so `temporal schedule list` and the Web UI
 * show and steer it as any other. The blueprint is resolved by the run when
 * it starts: `demo` takes the latest version each time, `demo@3` always 3.
 */
import { resolve } from 'node:path';
import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleSummary,
} from '@temporalio/client';
import { withBlueprintStore } from '../blueprints-store/configured.js';
import { checkName, parseRef } from '../blueprints-store/pushed-blueprints.js';
import { isStoredRef } from '../blueprints-store/run-input.js';
import { LevError } from '../errors.js';
import { DEFAULT_TASK_QUEUE } from '../runtime/defaults.js';
import type { RefRunInput } from '../runtime/ref-input.js';
import { callerValues } from './caller-values.js';
import { columnWidths } from './columns.js';
import { type ServerFlags, withClient } from './connect.js';

export type Overlap = 'skip' | 'buffer' | 'cancel';

/** What the run's start does when the previous scheduled run of the schedule is still going. */
export const OVERLAP_POLICIES: Record<Overlap, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer: ScheduleOverlapPolicy.BUFFER_ONE,
  cancel: ScheduleOverlapPolicy.CANCEL_OTHER,
};

export interface CreateFlags extends ServerFlags {
  every?: string;
  cron?: string;
  task?: string;
  workdir: string;
  input: string[];
  overlap: string;
  taskQueue: string;
  toolQueue?: string;
  json?: boolean;
}

/** What `lev schedule list --json` prints for each schedule, and the schedule's memo holds. */
export interface ScheduleRow {
  name: string;
  blueprint: string;
  task?: string;
  workdir: string;
  spec: string;
  paused: boolean;
  note?: string;
  nextRun: string | null;
  lastRun: { runId: string; at: string } | null;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--every`: a whole number and a unit, `90s`, `15m`, `12h`, `1d`, `2w`; at least a second. */
export function parseEvery(text: string): number {
  const m = /^\s*(\d+)\s*([smhdw])\s*$/.exec(text);
  const ms = m?.[1] && m[2] ? Number(m[1]) * (UNITS[m[2]] ?? 0) : 0;
  if (ms < 1000)
    throw new LevError(
      'schedule-spec-bad',
      `--every takes a whole number and a unit (s, m, h, d or w), got "${text}"; for example --every 1d.`,
    );
  return ms;
}

function parseOverlap(text: string): ScheduleOverlapPolicy {
  const policy = OVERLAP_POLICIES[text as Overlap];
  if (!policy)
    throw new LevError(
      'schedule-spec-bad',
      `--overlap is skip, buffer or cancel, got "${text}"; for example --overlap skip.`,
    );
  return policy;
}

/** The spec a schedule's flags make: exactly one of `--every` and `--cron`. */
export function scheduleSpec(flags: Pick<CreateFlags, 'every' | 'cron'>) {
  if ((flags.every === undefined) === (flags.cron === undefined))
    throw new LevError(
      'schedule-spec-bad',
      'A schedule runs --every DURATION or on --cron "EXPR", one of the two; for example --every 1d or --cron "0 3 * * *".',
    );
  if (flags.every !== undefined) return { intervals: [{ every: parseEvery(flags.every) }] };
  const cron = (flags.cron ?? '').trim();
  if (cron.split(/\s+/).length < 5 && !cron.startsWith('@'))
    throw new LevError(
      'schedule-spec-bad',
      `--cron takes five fields (minute hour day-of-month month day-of-week), got "${flags.cron}"; for example --cron "0 3 * * *".`,
    );
  return { cronExpressions: [cron] };
}

function notFound(name: string, address: string): LevError {
  return new LevError(
    'schedule-not-found',
    `No schedule "${name}" on ${address}; \`lev schedule list\` lists the schedules there are.`,
  );
}

export async function createSchedule(name: string, blueprint: string, flags: CreateFlags): Promise<void> {
  checkName(name);
  if (!isStoredRef(blueprint))
    throw new LevError(
      'blueprint-ref-bad',
      `A schedule runs a pushed blueprint, and "${blueprint}" is a path; \`lev blueprint push ${blueprint}\` stores it, then name it as name or name@version.`,
    );
  // A typo fails here, not at three in the morning; the run resolves it again when it starts.
  await withBlueprintStore((store) => store.find(parseRef(blueprint)));
  const spec = scheduleSpec(flags);
  const overlap = parseOverlap(flags.overlap);
  const workdir = resolve(flags.workdir);
  const input: RefRunInput = {
    blueprint,
    ...(flags.task !== undefined ? { task: flags.task } : {}),
    workdir,
    ...(flags.input.length > 0 ? { inputs: callerValues(flags.input) } : {}),
    ...(flags.toolQueue ? { toolQueue: flags.toolQueue } : {}),
  };
  await withClient(flags, async (client) => {
    try {
      await client.schedule.create({
        scheduleId: name,
        spec,
        action: {
          type: 'startWorkflow',
          workflowType: 'agentRunWorkflow',
          // Temporal appends the scheduled time: runs are <name>-<time>.
          workflowId: name,
          taskQueue: flags.taskQueue || DEFAULT_TASK_QUEUE,
          args: [input],
        },
        policies: { overlap },
        memo: {
          blueprint,
          ...(flags.task !== undefined ? { task: flags.task } : {}),
          workdir,
          spec: flags.every !== undefined ? `every ${flags.every.trim()}` : `cron ${(flags.cron ?? '').trim()}`,
        },
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning)
        throw new LevError(
          'schedule-exists',
          `A schedule "${name}" exists on ${flags.address}; \`lev schedule delete ${name}\` removes it, or choose another name.`,
        );
      throw err;
    }
    const row = await scheduleRow(client, name, flags.address);
    if (flags.json) process.stdout.write(`${JSON.stringify(row)}\n`);
    else
      process.stdout.write(
        `schedule ${name} created: ${row.blueprint} ${row.spec}; next run ${row.nextRun ?? 'none'}\n`,
      );
  });
}

function specText(spec: ScheduleSummary['spec']): string {
  const parts = [
    ...(spec?.intervals ?? []).map((i) => `every ${everyText(Number(i.every))}`),
    ...((spec?.calendars ?? []).length > 0 ? ['cron'] : []),
  ];
  return parts.join(', ') || 'no spec';
}

function everyText(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = UNITS[unit] ?? 1;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function rowOf(s: Pick<ScheduleSummary, 'scheduleId' | 'spec' | 'memo' | 'state' | 'info'>): ScheduleRow {
  const memo = (s.memo ?? {}) as { blueprint?: string; task?: string; workdir?: string; spec?: string };
  const last = s.info.recentActions.at(-1);
  return {
    name: s.scheduleId,
    blueprint: memo.blueprint ?? '',
    ...(memo.task !== undefined ? { task: memo.task } : {}),
    workdir: memo.workdir ?? '',
    spec: memo.spec ?? specText(s.spec),
    paused: s.state.paused,
    ...(s.state.note ? { note: s.state.note } : {}),
    nextRun: s.info.nextActionTimes[0]?.toISOString() ?? null,
    lastRun: last ? { runId: last.action.workflow.workflowId, at: last.takenAt.toISOString() } : null,
  };
}

async function scheduleRow(client: Client, name: string, address: string): Promise<ScheduleRow> {
  try {
    const d = await client.schedule.getHandle(name).describe();
    return rowOf({ ...d, scheduleId: name });
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw notFound(name, address);
    throw err;
  }
}

export async function listSchedules(flags: ServerFlags & { json?: boolean }): Promise<void> {
  await withClient(flags, async (client) => {
    const rows: ScheduleRow[] = [];
    for await (const s of client.schedule.list())
      if (s.action?.workflowType === 'agentRunWorkflow') rows.push(rowOf(s));
    rows.sort((a, b) => a.name.localeCompare(b.name));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(rows)}\n`);
      return;
    }
    const header = ['NAME', 'BLUEPRINT', 'WHEN', 'STATE', 'NEXT RUN', 'LAST RUN'];
    const cells = rows.map((r) => [
      r.name,
      r.blueprint,
      r.spec,
      r.paused ? 'paused' : 'active',
      r.nextRun ?? '-',
      r.lastRun?.runId ?? '-',
    ]);
    const widths = columnWidths(header, cells);
    for (const row of [header, ...cells])
      process.stdout.write(
        `${row
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
      );
  });
}

export type ScheduleVerb = 'pause' | 'unpause' | 'delete' | 'trigger';

/** `lev schedule pause|unpause|delete|trigger <name>`. */
export async function steerSchedule(
  verb: ScheduleVerb,
  name: string,
  flags: ServerFlags & { note?: string; json?: boolean },
): Promise<void> {
  await withClient(flags, async (client) => {
    const handle = client.schedule.getHandle(name);
    const note = flags.note ?? `${verb}d with lev schedule ${verb}`;
    try {
      if (verb === 'pause') await handle.pause(note);
      else if (verb === 'unpause') await handle.unpause(note);
      else if (verb === 'delete') await handle.delete();
      // A trigger keeps the schedule's overlap policy, so a manual run never doubles a scheduled one that is going.
      else await handle.trigger((await handle.describe()).policies.overlap);
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw notFound(name, flags.address);
      throw err;
    }
    const said = { pause: 'paused', unpause: 'unpaused', delete: 'deleted', trigger: 'triggered' }[verb];
    if (flags.json) process.stdout.write(`${JSON.stringify({ name, [said]: true })}\n`);
    else process.stdout.write(`schedule ${name} ${said}\n`);
  });
}
