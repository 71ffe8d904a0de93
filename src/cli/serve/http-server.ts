/**
 * `lev serve`'s HTTP server on `node:http` (docs/reference/http-api.md):
 * finds the route, checks who asks (`serve-auth.ts`), reads the query and the
 * JSON body through the route's shapes, and answers JSON, Server-Sent Events
 * or a file of the page. Every refusal is `{ code, message }` with the code
 * the CLI prints.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { z } from 'zod';
import { keyMissingError } from '../../codec/key-missing.js';
import { isLevError, LevError } from '../../errors.js';
import { PROJECT_ROOT } from '../../state/project-root.js';
import { ROUTES, type RouteRequest, type ServeContext } from './api-routes.js';
import { httpStatus } from './http-status.js';
import { openApiDocument } from './openapi.js';
import { matchRoute } from './route-match.js';
import { carriesToken, hostIsLocal } from './serve-auth.js';
import { itemFrame, sseFrame } from './sse-frames.js';

/**
 * The page's files, shipped as they are: no build step. The compiled build has them copied
 * into `dist/page/` (`scripts/build.mjs`), since an installed package holds no `src/`.
 */
export const PAGE_DIR = import.meta.url.endsWith('.ts')
  ? join(PROJECT_ROOT, 'src', 'cli', 'serve', 'page')
  : join(PROJECT_ROOT, 'dist', 'page');
const PAGE_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
/** The largest request body: a blueprint reference, a task, a message of 64 KiB and their JSON. */
const MAX_BODY_BYTES = 1 << 20;
/** A comment line this often keeps proxies and browsers from closing an idle event stream. */
const KEEP_ALIVE_MS = 15_000;

export interface ServeOptions {
  host: string;
  port: number;
  token?: string;
  ctx: ServeContext;
}

export interface RunningServe {
  url: string;
  close(): Promise<void>;
}

function badRequest(message: string): LevError {
  return new LevError('serve-bad-request', message);
}

/** The coded error an exception stands for; anything unforeseen is `serve-failed`, logged. */
export function codedError(err: unknown, say: (line: string) => void): LevError {
  if (isLevError(err)) return err;
  const missing = keyMissingError(err);
  if (missing) return missing;
  if (err instanceof WorkflowNotFoundError)
    return new LevError(
      'run-not-found',
      `No run "${err.workflowId}" is known to the Temporal server; check the run id.`,
    );
  const text = err instanceof Error ? err.message : String(err);
  say(`lev serve: ${err instanceof Error && err.stack ? err.stack : text}`);
  return new LevError('serve-failed', `lev serve failed answering this request (${text}); its log has the details.`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, err: LevError): void {
  sendJson(res, httpStatus(err.code), {
    code: err.code,
    message: err.message,
    ...(err.diagnostics.length > 0 ? { diagnostics: err.diagnostics } : {}),
  });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw badRequest(
        `The request body is over ${MAX_BODY_BYTES} bytes; send a blueprint by path or reference, not inline.`,
      );
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  // A form a page of another site could post without asking first is not JSON: refusing it keeps such pages out.
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw badRequest('The request body must be JSON, sent with Content-Type: application/json.');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`The request body is not JSON (${(err as Error).message}); send one JSON object.`);
  }
}

/** A value through a route's shape; the first finding is the sentence. */
function checked(shape: z.ZodObject | undefined, value: unknown, what: string): unknown {
  if (!shape) {
    if (value && typeof value === 'object' && Object.keys(value).length > 0)
      throw badRequest(`This route takes no ${what}; leave it out.`);
    return value;
  }
  const parsed = shape.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw badRequest(
    `The ${what} does not fit this route (${at}${issue?.message ?? 'invalid'}); /openapi.json describes what it takes.`,
  );
}

async function sendPage(res: ServerResponse, file: string, contentType: string): Promise<void> {
  const type = contentType || PAGE_TYPES[extname(file)];
  if (!/^[\w-]+\.(html|js|css)$/.test(file) || !type)
    throw new LevError('serve-not-found', `The page has no file "${file}".`);
  let text: string;
  try {
    text = await readFile(join(PAGE_DIR, file), 'utf8');
  } catch {
    throw new LevError('serve-not-found', `The page has no file "${file}".`);
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
  res.end(text);
}

async function sendEvents(
  req: IncomingMessage,
  res: ServerResponse,
  items: (signal: AbortSignal) => Promise<AsyncIterable<import('../../shapes/run-events.js').StreamItem>>,
  say: (line: string) => void,
): Promise<void> {
  const stop = new AbortController();
  req.on('close', () => stop.abort());
  const stream = await items(stop.signal);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // Each frame leaves at once: a text delta is worth sending alone.
  res.socket?.setNoDelay(true);
  res.write(': events of the run follow\n\n');
  const alive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    for await (const item of stream) {
      if (stop.signal.aborted) break;
      res.write(itemFrame(item));
    }
    if (!stop.signal.aborted) res.write(sseFrame('end', { reason: 'the run ended' }));
  } catch (err) {
    if (!stop.signal.aborted) {
      const e = codedError(err, say);
      res.write(sseFrame('error', { code: e.code, message: e.message }));
    }
  } finally {
    clearInterval(alive);
    res.end();
  }
}

async function answer(req: IncomingMessage, res: ServerResponse, opts: ServeOptions): Promise<void> {
  const { ctx, token } = opts;
  const url = new URL(req.url ?? '/', 'http://lev-serve');
  const matched = matchRoute(ROUTES, req.method ?? 'GET', url.pathname);
  if (!matched) {
    const other = ROUTES.some((r) => matchRoute([r], r.method, url.pathname));
    throw new LevError(
      'serve-not-found',
      other
        ? `${req.method} is not how ${url.pathname} is asked; /openapi.json lists each route's method.`
        : `lev serve has no route ${url.pathname}; /openapi.json lists them.`,
    );
  }
  const { route, params } = matched;
  if (!route.open) {
    if (token && !carriesToken(req.headers.authorization, token))
      throw new LevError(
        'serve-unauthorized',
        'This lev serve takes requests with its token only; send Authorization: Bearer <the --token or LEVIATH_SERVE_TOKEN it was started with>.',
      );
    if (!token && !hostIsLocal(req.headers.host))
      throw new LevError(
        'serve-unauthorized',
        `This lev serve listens on loopback without a token and answers only requests addressed to this machine (Host: localhost or 127.0.0.1), not "${req.headers.host ?? ''}".`,
      );
  }
  const request: RouteRequest = {
    params,
    // A page's query is its own script's to read (the run list's filters); the server leaves it be.
    query:
      route.kind === 'page'
        ? {}
        : (checked(route.query, Object.fromEntries(url.searchParams), 'query') as Record<string, string | undefined>),
    body: req.method === 'POST' ? checked(route.body, await readBody(req), 'body') : undefined,
    headers: req.headers,
  };
  switch (route.kind) {
    case 'json': {
      const out = await route.handle(ctx, request);
      return sendJson(res, out.status, out.body);
    }
    case 'sse':
      return sendEvents(req, res, (signal) => route.handle(ctx, request, signal), ctx.say);
    case 'page':
      return sendPage(res, route.file(request), route.contentType);
    case 'openapi':
      return sendJson(res, 200, openApiDocument(ROUTES));
  }
}

/** Listens until closed; a port of 0 picks a free one (the URL says which). */
export async function startServe(opts: ServeOptions): Promise<RunningServe> {
  const server = createServer((req, res) => {
    answer(req, res, opts).catch((err) => {
      const e = codedError(err, opts.ctx.say);
      if (res.headersSent) res.end();
      else sendError(res, e);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams stay open until their run ends; closing the server ends them now.
        server.closeAllConnections();
      }),
  };
}
