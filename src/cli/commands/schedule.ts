/** `lev schedule`: runs of a pushed blueprint on Temporal Schedules (docs/reference/cluster-runs.md#schedules). */
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../runtime/defaults.js';
import { withServerOptions } from '../options.js';
import type { CreateFlags, ScheduleVerb } from '../schedule-action.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const VERBS: [ScheduleVerb, string][] = [
  ['pause', 'Pause a schedule: no run starts until it is unpaused.'],
  ['unpause', 'Unpause a paused schedule.'],
  ['delete', 'Delete a schedule; the runs it started go on.'],
  ['trigger', "Start a run of a schedule now, under the schedule's overlap policy."],
];

export function registerSchedule(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('Run a pushed blueprint on a Temporal Schedule: every D or on a cron expression.');
  withServerOptions(
    schedule
      .command('create')
      .description('Create a schedule that starts a run of a pushed blueprint (name or name@version).')
      .argument('<name>', 'the schedule id (runs are <name>-<time>)')
      .argument('<blueprint>', 'a pushed blueprint: name (its latest version at each run) or name@version')
      .option('--every <duration>', 'run every this long: 90s, 15m, 12h, 1d, 2w')
      .option('--cron <expr>', 'run on this cron expression, such as "0 3 * * *" (UTC)')
      .option('--task <text>', 'the task of every run')
      .option('--workdir <dir>', 'working directory of the runs, where their tool worker runs', '.')
      .option('--input <key=value>', 'a named caller value (repeatable)', collect, [])
      .option('--overlap <policy>', 'when the last run still goes: skip, buffer or cancel', 'skip')
      .option('--task-queue <name>', "task queue of the cluster's workers", DEFAULT_TASK_QUEUE)
      .option('--tool-queue <name>', "the workdir's tool queue (default: the one lev worker --tools polls)"),
    'print the schedule as JSON',
  ).action(async (name: string, blueprint: string, flags: CreateFlags) => {
    const { createSchedule } = await import('../schedule-action.js');
    await createSchedule(name, blueprint, flags);
  });
  withServerOptions(
    schedule.command('list').description("List Leviath's schedules: blueprint, spec, state, next and last run."),
    'print the schedules as a JSON array',
  ).action(async (flags: { address: string; namespace: string; json?: boolean }) => {
    const { listSchedules } = await import('../schedule-action.js');
    await listSchedules(flags);
  });
  for (const [verb, description] of VERBS)
    withServerOptions(
      schedule.command(verb).description(description).argument('<name>', 'the schedule id'),
      'print {name, <what was done>: true}',
    ).action(async (name: string, flags: { address: string; namespace: string; json?: boolean }) => {
      const { steerSchedule } = await import('../schedule-action.js');
      await steerSchedule(verb, name, flags);
    });
}
