/**
 * The OpenAPI 3.1 document `lev serve` answers at `/openapi.json`, built
 * from the route table (`api-routes.ts`): every route is described because
 * the document is made of the routes, with the zod shapes of their queries
 * and bodies as JSON Schema.
 */
import { z } from 'zod';
import { LEVIATH_VERSION } from '../../version.js';
import type { Route } from './api-routes.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'The stable code the CLI prints (docs/reference/errors.md)' },
    message: { type: 'string', description: 'One sentence that says what to do' },
    diagnostics: { type: 'array', items: { type: 'object' }, description: "A blueprint's findings, when it has any" },
  },
} as const;

function schemaOf(shape: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(shape, { io: 'input' }) as Record<string, unknown>;
  return schema;
}

/** The names in a path's braces, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

function operation(route: Route): Record<string, unknown> {
  const parameters = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(route.query?.shape ?? {}).map(([name, field]) => ({
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      schema: schemaOf(field as z.ZodType),
      ...((field as z.ZodType).description ? { description: (field as z.ZodType).description } : {}),
    })),
  ];
  const content =
    route.kind === 'sse'
      ? { 'text/event-stream': { schema: { type: 'string' } } }
      : route.kind === 'page'
        ? { [route.contentType || 'text/plain']: { schema: { type: 'string' } } }
        : { 'application/json': { schema: { type: 'object' } } };
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: false, content: { 'application/json': { schema: schemaOf(route.body) } } } }
      : {}),
    responses: {
      [String(route.ok.status)]: { description: route.ok.description, content },
      default: {
        description: 'A coded error: the code the CLI prints and a sentence that says what to do',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
    ...(route.open ? { security: [] } : {}),
  };
}

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(route);
    paths[route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Leviath (lev serve)',
      version: LEVIATH_VERSION,
      description:
        "Start, list, show, steer and follow Leviath runs over HTTP; errors are { code, message } with the CLI's codes (docs/reference/http-api.md).",
    },
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: '--token or LEVIATH_SERVE_TOKEN; none needed on loopback without one',
        },
      },
    },
    // Optional: lev serve on loopback without a token takes requests without one.
    security: [{}, { bearer: [] }],
  };
}
