/**
 * The pure parts of `lev serve` (docs/reference/http-api.md): who may ask,
 * the status a code answers with, SSE frames and resume offsets, route
 * matching, and an OpenAPI document that describes every route.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../src/cli/serve/api-routes.js';
import { codedError } from '../../../src/cli/serve/http-server.js';
import { httpStatus } from '../../../src/cli/serve/http-status.js';
import { openApiDocument, pathParams } from '../../../src/cli/serve/openapi.js';
import { matchRoute } from '../../../src/cli/serve/route-match.js';
import {
  bindingRefusal,
  carriesToken,
  hostIsLocal,
  isLoopback,
  serveToken,
} from '../../../src/cli/serve/serve-auth.js';
import { itemFrame, resumeFrom, sseFrame } from '../../../src/cli/serve/sse-frames.js';
import { isLevError } from '../../../src/errors.js';
import { OPERATOR_UPDATES } from '../../../src/runtime/people/updates.js';

describe('who may ask lev serve', () => {
  it('knows loopback from the rest', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '128.0.0.1']) expect(isLoopback(h)).toBe(false);
  });

  it('refuses to listen beyond loopback without a token, and only then', () => {
    const refused = bindingRefusal('0.0.0.0', undefined);
    expect(refused?.code).toBe('serve-token-required');
    expect(refused?.message).toContain('--token');
    expect(bindingRefusal('0.0.0.0', 's3cret')).toBeUndefined();
    expect(bindingRefusal('127.0.0.1', undefined)).toBeUndefined();
  });

  it('takes the token from the flag, else LEVIATH_SERVE_TOKEN; blank is none', () => {
    expect(serveToken('a', { LEVIATH_SERVE_TOKEN: 'b' })).toBe('a');
    expect(serveToken(undefined, { LEVIATH_SERVE_TOKEN: 'b' })).toBe('b');
    expect(serveToken('  ', { LEVIATH_SERVE_TOKEN: ' ' })).toBeUndefined();
  });

  it('reads the bearer token exactly', () => {
    expect(carriesToken('Bearer s3cret', 's3cret')).toBe(true);
    expect(carriesToken('bearer s3cret', 's3cret')).toBe(true);
    expect(carriesToken('Bearer s3cre', 's3cret')).toBe(false);
    expect(carriesToken('Basic s3cret', 's3cret')).toBe(false);
    expect(carriesToken(undefined, 's3cret')).toBe(false);
  });

  it('answers without a token only requests addressed to this machine', () => {
    expect(hostIsLocal('127.0.0.1:8740')).toBe(true);
    expect(hostIsLocal('localhost:8740')).toBe(true);
    expect(hostIsLocal('[::1]:8740')).toBe(true);
    expect(hostIsLocal('evil.example:8740')).toBe(false);
    expect(hostIsLocal(undefined)).toBe(false);
  });
});

describe('HTTP statuses of coded errors', () => {
  it('sorts codes by what the client should do', () => {
    expect(httpStatus('run-not-found')).toBe(404);
    expect(httpStatus('serve-unauthorized')).toBe(401);
    expect(httpStatus('run-finished')).toBe(409);
    expect(httpStatus('blueprint-invalid')).toBe(422);
    expect(httpStatus('server-unreachable')).toBe(502);
    expect(httpStatus('serve-failed')).toBe(500);
    expect(httpStatus('bad-update')).toBe(400);
  });

  it('turns an unforeseen failure into serve-failed, and logs it', () => {
    const said: string[] = [];
    const e = codedError(new Error('boom'), (l) => said.push(l));
    expect(isLevError(e) && e.code).toBe('serve-failed');
    expect(e.message).toContain('boom');
    expect(said.join('\n')).toContain('boom');
  });
});

describe('Server-Sent Events', () => {
  it('frames a durable event with its offset and a text delta without one', () => {
    expect(sseFrame('end', { a: 1 })).toBe('event: end\ndata: {"a":1}\n\n');
    const durable = itemFrame({ v: 1, kind: 'wait-ended', offset: 7, time: 0, wait: 'approval', ended: 'approved' });
    expect(durable.startsWith('id: 7\nevent: event\n')).toBe(true);
    const delta = itemFrame({ kind: 'text', turn: 2, at: 0, text: 'line one\nline two' });
    expect(delta).toBe('event: text\ndata: {"kind":"text","turn":2,"at":0,"text":"line one\\nline two"}\n\n');
  });

  it('resumes after Last-Event-ID, else from ?from=, else from the oldest kept', () => {
    expect(resumeFrom('7', '2')).toBe(8);
    expect(resumeFrom(undefined, '2')).toBe(2);
    expect(resumeFrom(undefined, undefined)).toBeUndefined();
    expect(() => resumeFrom(undefined, '-1')).toThrow(/not an event offset/);
    const refused = (() => {
      try {
        resumeFrom('x', undefined);
      } catch (err) {
        return err;
      }
    })();
    expect(isLevError(refused) && refused.code).toBe('serve-bad-request');
  });
});

describe('the route table', () => {
  it('matches paths with decoded parameters, a sub-agent run id with its slash included', () => {
    const m = matchRoute(ROUTES, 'POST', '/api/runs/a%2Fb/approve');
    expect(m?.route.operationId).toBe('approve');
    expect(m?.params).toEqual({ runId: 'a/b' });
    expect(matchRoute(ROUTES, 'GET', '/api/runs/x')?.route.operationId).toBe('showRun');
    expect(matchRoute(ROUTES, 'DELETE', '/api/runs/x')).toBeUndefined();
    expect(matchRoute(ROUTES, 'GET', '/api/runs/%E0%A4%A')).toBeUndefined();
    expect(matchRoute(ROUTES, 'GET', '/nope')).toBeUndefined();
  });

  it('has a route for every operator update, and one route per method and path', () => {
    for (const update of OPERATOR_UPDATES)
      expect(ROUTES.some((r) => r.method === 'POST' && r.path === `/api/runs/{runId}/${update}`)).toBe(true);
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is described whole by /openapi.json: each route, its path parameters, query and body', () => {
    const doc = openApiDocument(ROUTES) as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { operationId: string; parameters?: { name: string; in: string }[]; requestBody?: unknown }>
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op?.operationId).toBe(route.operationId);
      for (const name of pathParams(route.path))
        expect(op?.parameters?.some((p) => p.name === name && p.in === 'path')).toBe(true);
      for (const name of Object.keys(route.query?.shape ?? {}))
        expect(op?.parameters?.some((p) => p.name === name && p.in === 'query')).toBe(true);
      expect(op?.requestBody !== undefined).toBe(route.body !== undefined);
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(ROUTES.length);
  });
});
