/**
 * Every route of `lev serve` in one table (docs/reference/http-api.md): its
 * method and path, what `/openapi.json` says of it (`openapi.ts` builds the
 * document from this table, so the two cannot drift), the zod shapes of its
 * query and body, and what it does, through the same functions the commands
 * use: `launchInput` and `startRun` as `lev run --detach`, `listRuns` as
 * `lev ps`, `viewRun` as `lev show`, `sendUpdate` and `cancelRun` as the
 * operator commands, `readResult` as `lev result`, `forkRun` as `lev fork`,
 * and `subscribeRun` for the events.
 */
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { LevError } from '../../errors.js';
import { OPERATOR_UPDATES, type OperatorUpdate } from '../../runtime/people/updates.js';
import type { StreamItem } from '../../shapes/run-events.js';
import { subscribeRun } from '../../stream/subscribe.js';
import { forkRun } from '../../worker/forks.js';
import { cancelRun, sendUpdate } from '../../worker/operators.js';
import { startRun } from '../../worker/run-client.js';
import { filterStatus } from '../../worker/run-list.js';
import { describeRun, listRuns, viewRun } from '../../worker/runs.js';
import { DEFAULT_CANCEL_GRACE_SECS } from '../../worker/task-failures.js';
import { missingWorkers } from '../detach-action.js';
import { parseOutputSchema } from '../launch-flags.js';
import { launchInput } from '../launch-input.js';
import { runIdProblem } from '../options.js';
import { readResult } from '../result-action.js';
import { resumeFrom } from './sse-frames.js';

/** What every route is given: the one client `lev serve` holds, and where it is. */
export interface ServeContext {
  client: Client;
  address: string;
  namespace: string;
  /** The task queue runs started here go to, unless a request names another. */
  taskQueue: string;
  /** Where the server's own notes go (its stderr). */
  say(line: string): void;
}

/** A request as a route reads it: path parameters decoded, the query and the JSON body checked by its shapes. */
export interface RouteRequest {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

interface RouteDoc {
  method: 'GET' | 'POST';
  /** OpenAPI's form: `/api/runs/{runId}`. */
  path: string;
  operationId: string;
  summary: string;
  /** The success status and what it answers. */
  ok: { status: number; description: string };
  query?: z.ZodObject;
  body?: z.ZodObject;
  /** Whether it answers without the token: the page's files hold no run data. */
  open?: boolean;
}

export type Route = RouteDoc &
  (
    | { kind: 'json'; handle(ctx: ServeContext, req: RouteRequest): Promise<JsonAnswer> }
    | {
        kind: 'sse';
        /** Resolves once the request is known good (the run exists), so a refusal is still a JSON answer. */
        handle(ctx: ServeContext, req: RouteRequest, signal: AbortSignal): Promise<AsyncIterable<StreamItem>>;
      }
    | { kind: 'page'; contentType: string; file(req: RouteRequest): string }
    | { kind: 'openapi' }
  );

/** The run a path names, checked as a command checks its `<run-id>`. */
function runIdOf(req: RouteRequest): string {
  const runId = req.params.runId ?? '';
  const problem = runIdProblem(runId);
  if (problem) throw new LevError('run-id-bad', problem);
  return runId;
}

const ok = (body: unknown, status = 200): JsonAnswer => ({ status, body });

const StartBody = z
  .object({
    blueprint: z
      .string()
      .min(1)
      .describe(
        'A blueprint directory or .toml file on the machine lev serve runs on, an installed agent, or a pushed name[@version]',
      ),
    task: z.string().optional().describe('The task, for blueprints that read one'),
    workdir: z
      .string()
      .optional()
      .describe("The working directory the tools and seeds are confined to (default: lev serve's own)"),
    inputs: z.record(z.string(), z.string()).optional().describe('Named caller values, as `lev run --input key=value`'),
    model: z.string().optional().describe('provider:model for every stage'),
    seedCommands: z.boolean().optional().describe('false refuses command seeds, as `--no-seed-commands`'),
    taskQueue: z.string().optional().describe("The run's task queue (default: lev serve's --task-queue)"),
    toolQueue: z.string().optional().describe("A tool queue served by `lev worker --tools` (default: the workdir's)"),
    id: z.string().optional().describe('The run id (default: <agent>-<time>-<random>)'),
    title: z.string().optional().describe('What people call the run: `lev ps` and the Web UI show it'),
    outputFormat: z.string().optional(),
    outputInstructions: z.string().optional(),
    outputSchema: z.record(z.string(), z.unknown()).optional().describe('A JSON Schema the final answer must satisfy'),
    allow: z.array(z.string()).optional().describe('Tools whose `ask` becomes `allow`'),
    yolo: z.boolean().optional().describe('Unattended, with every `ask` allowed; a `deny` stays'),
    attended: z.boolean().optional().describe('A person attends: `ask` permissions wait for approve or deny'),
  })
  .strict();

const ListQuery = z
  .object({
    status: z.string().optional().describe('Only runs with this status, as `lev ps --status`'),
    blueprint: z.string().optional().describe('Only runs of this blueprint'),
    limit: z
      .string()
      .regex(/^[1-9]\d*$/, 'expected a whole number of at least 1')
      .optional()
      .describe('At most this many runs (default 50)'),
  })
  .strict();

const ResultQuery = z
  .object({ wait: z.enum(['true', 'false']).optional().describe('Wait for a run still going, as `lev result --wait`') })
  .strict();

const EventsQuery = z
  .object({
    from: z.string().optional().describe('The first offset to send (a reconnect sends Last-Event-ID instead)'),
    tokens: z.enum(['true', 'false']).optional().describe("Send the model's text as `text` events (default true)"),
  })
  .strict();

const CancelBody = z
  .object({
    wait: z.boolean().optional().describe('Answer once the run has ended'),
    graceSeconds: z
      .number()
      .min(0)
      .optional()
      .describe(`How long a wedged run may take before it is terminated (default ${DEFAULT_CANCEL_GRACE_SECS})`),
  })
  .strict();

const ForkBody = z
  .object({
    turn: z.number().int().min(0).describe('Fork after this turn (0: before the first)'),
    stage: z.string().optional().describe('Count the turn in this stage only'),
    model: z.string().optional().describe('The fork uses this model for every stage'),
  })
  .strict();

/** Each update's body: what its `lev` command sends, as JSON. */
const UPDATE_BODIES: Record<OperatorUpdate, z.ZodObject> = {
  message: z.object({ text: z.string().describe('The message the model reads before its next inference') }).strict(),
  approve: z.object({ call: z.string().optional(), note: z.string().optional() }).strict(),
  deny: z.object({ call: z.string().optional(), note: z.string().optional().describe('Shown to the model') }).strict(),
  answer: z
    .object({
      call: z.string().optional(),
      text: z.string().optional(),
      choice: z
        .union([z.string(), z.number().int()])
        .optional()
        .describe('An option, by its text or its number from 1'),
      yes: z.boolean().optional().describe('The answer to a yes/no question'),
    })
    .strict(),
  pause: z.object({}).strict(),
  resume: z.object({}).strict(),
};

const UPDATE_SUMMARIES: Record<OperatorUpdate, string> = {
  message: 'Send a message the running agent reads before its next inference (`lev msg`)',
  approve: 'Approve a tool call that waits under an `ask` permission (`lev approve`)',
  deny: 'Deny a tool call that waits under an `ask` permission (`lev deny`)',
  answer: 'Answer a question the agent asked (`lev answer`)',
  pause: 'Pause the run before its next inference (`lev pause`)',
  resume: 'Resume a paused run (`lev resume`)',
};

/** The argument the run's update takes, from the body: the text of a message, nothing for pause and resume. */
function updateArgument(update: OperatorUpdate, body: Record<string, unknown>): unknown {
  if (update === 'message') return body.text;
  if (update === 'pause' || update === 'resume') return undefined;
  return body;
}

const updateRoutes: Route[] = OPERATOR_UPDATES.map((update) => ({
  kind: 'json',
  method: 'POST',
  path: `/api/runs/{runId}/${update}`,
  operationId: update,
  summary: UPDATE_SUMMARIES[update],
  ok: {
    status: 200,
    description: `The run's answer to its \`${update}\` update, as \`lev ${update === 'message' ? 'msg' : update} --json\` prints it`,
  },
  body: UPDATE_BODIES[update],
  handle: async (ctx, req) =>
    ok(await sendUpdate(ctx.client, runIdOf(req), update, updateArgument(update, req.body as Record<string, unknown>))),
}));

export const ROUTES: readonly Route[] = [
  {
    kind: 'page',
    method: 'GET',
    path: '/',
    operationId: 'pageRuns',
    summary: 'The live page: the run list',
    ok: { status: 200, description: 'HTML' },
    open: true,
    contentType: 'text/html; charset=utf-8',
    file: () => 'runs.html',
  },
  {
    kind: 'page',
    method: 'GET',
    path: '/runs/{runId}',
    operationId: 'pageRun',
    summary: "The live page of one run: its window turn by turn, the model's text as it streams, the controls",
    ok: { status: 200, description: 'HTML' },
    open: true,
    contentType: 'text/html; charset=utf-8',
    file: () => 'run.html',
  },
  {
    kind: 'page',
    method: 'GET',
    path: '/page/{file}',
    operationId: 'pageFile',
    summary: "The page's scripts and style sheet (plain ES modules and CSS, no build step)",
    ok: { status: 200, description: 'JavaScript or CSS' },
    open: true,
    contentType: '',
    file: (req) => req.params.file ?? '',
  },
  {
    kind: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    ok: { status: 200, description: 'The OpenAPI 3.1 document of every route' },
    open: true,
  },
  {
    kind: 'json',
    method: 'GET',
    path: '/api/runs',
    operationId: 'listRuns',
    summary: 'The runs, newest first, as `lev ps --json` lists them',
    ok: { status: 200, description: 'An array of runs (RunRow)' },
    query: ListQuery,
    handle: async (ctx, req) => {
      const { status, blueprint, limit } = req.query;
      filterStatus(status);
      const filter = { ...(status !== undefined ? { status } : {}), ...(blueprint !== undefined ? { blueprint } : {}) };
      return ok(await listRuns(ctx.client, filter, { limit: limit === undefined ? 50 : Number(limit) }));
    },
  },
  {
    kind: 'json',
    method: 'POST',
    path: '/api/runs',
    operationId: 'startRun',
    summary: "Start a run, as `lev run --detach` does; the cluster's workers and the workdir's tool worker serve it",
    ok: {
      status: 201,
      description:
        'The run started: runId, address, namespace, taskQueue, toolTaskQueue, and warnings naming queues no worker polls yet',
    },
    body: StartBody,
    handle: async (ctx, req) => {
      const b = req.body as z.infer<typeof StartBody>;
      if (b.id !== undefined) {
        const problem = runIdProblem(b.id);
        if (problem) throw new LevError('run-id-bad', problem);
      }
      const input = await launchInput(
        b.blueprint,
        {
          ...(b.task !== undefined ? { task: b.task } : {}),
          caller: b.inputs ?? {},
          ...(b.model ? { model: b.model } : {}),
          workdir: b.workdir ?? process.cwd(),
          seedCommands: b.seedCommands !== false,
          ...(b.toolQueue ? { toolQueue: b.toolQueue } : {}),
          ...(b.outputFormat ? { outputFormat: b.outputFormat } : {}),
          ...(b.outputInstructions ? { outputInstructions: b.outputInstructions } : {}),
          ...(b.outputSchema ? { outputSchema: parseOutputSchema(JSON.stringify(b.outputSchema)) } : {}),
          allow: b.allow ?? [],
          ...(b.yolo ? { yolo: true } : {}),
          ...(b.attended ? { attended: true } : {}),
          ...(b.title !== undefined ? { title: b.title } : {}),
        },
        { say: ctx.say, quiet: true },
      );
      const taskQueue = b.taskQueue ?? ctx.taskQueue;
      const handle = await startRun(ctx.client, input, { taskQueue, ...(b.id ? { workflowId: b.id } : {}) });
      const toolTaskQueue = input.options.toolTaskQueue ?? '';
      return ok(
        {
          runId: handle.workflowId,
          address: ctx.address,
          namespace: ctx.namespace,
          taskQueue,
          toolTaskQueue,
          warnings: await missingWorkers(ctx.client, ctx.namespace, taskQueue, toolTaskQueue, input.workdir),
        },
        201,
      );
    },
  },
  {
    kind: 'json',
    method: 'GET',
    path: '/api/runs/{runId}',
    operationId: 'showRun',
    summary: 'One run in full, as `lev show --json` shows it',
    ok: { status: 200, description: 'The run (RunView): status, stages, regions, window, asks, usage, output, ...' },
    handle: async (ctx, req) => ok(await viewRun(ctx.client, runIdOf(req), ctx.address)),
  },
  {
    kind: 'json',
    method: 'GET',
    path: '/api/runs/{runId}/result',
    operationId: 'runResult',
    summary: "The run's result, as `lev result --json` prints it",
    ok: { status: 200, description: 'runId, status, stages, output {format, text}, usage, cost, error' },
    query: ResultQuery,
    handle: async (ctx, req) =>
      ok(
        await readResult(ctx.client, runIdOf(req), {
          address: ctx.address,
          wait: req.query.wait === 'true',
          say: ctx.say,
        }),
      ),
  },
  {
    kind: 'sse',
    method: 'GET',
    path: '/api/runs/{runId}/events',
    operationId: 'runEvents',
    summary:
      "The run's events as Server-Sent Events: `event` frames with the offset as id (resumable with Last-Event-ID or ?from=), `text` frames with the model's text as it arrives (not resumable)",
    ok: { status: 200, description: 'text/event-stream' },
    query: EventsQuery,
    handle: async (ctx, req, signal) => {
      const last = req.headers['last-event-id'];
      const from = resumeFrom(Array.isArray(last) ? last[0] : last, req.query.from);
      const runId = runIdOf(req);
      await describeRun(ctx.client, runId, ctx.address);
      return subscribeRun(ctx.client, runId, {
        signal,
        tokens: req.query.tokens !== 'false',
        ...(from !== undefined ? { from } : {}),
      });
    },
  },
  ...updateRoutes,
  {
    kind: 'json',
    method: 'POST',
    path: '/api/runs/{runId}/cancel',
    operationId: 'cancel',
    summary: 'Cancel the run (`lev cancel`): it stops at its next safe point and ends CANCELED',
    ok: { status: 200, description: 'runId, requested, and with wait the status it ended with' },
    body: CancelBody,
    handle: async (ctx, req) => {
      const runId = runIdOf(req);
      const b = req.body as z.infer<typeof CancelBody>;
      const graceMs = (b.graceSeconds ?? DEFAULT_CANCEL_GRACE_SECS) * 1000;
      const end = await cancelRun(ctx.client, runId, { wait: b.wait === true, graceMs });
      return ok({ runId, requested: true, ...end });
    },
  },
  {
    kind: 'json',
    method: 'POST',
    path: '/api/runs/{runId}/fork',
    operationId: 'fork',
    summary: 'Start a new run from the region set the run had after one of its turns (`lev fork`)',
    ok: {
      status: 201,
      description: 'The fork started, as `lev fork --json` prints it, and warnings naming queues no worker polls yet',
    },
    body: ForkBody,
    handle: async (ctx, req) => {
      const b = req.body as z.infer<typeof ForkBody>;
      const forked = await forkRun(ctx.client, runIdOf(req), b, ctx.address);
      const warnings = await missingWorkers(
        ctx.client,
        ctx.namespace,
        forked.taskQueue,
        forked.toolTaskQueue ?? '',
        forked.workdir,
      );
      return ok({ ...forked, warnings }, 201);
    },
  },
];
