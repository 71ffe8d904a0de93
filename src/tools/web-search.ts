/**
 * `web_search`: a web search through the search API the user config names
 * (docs/reference/web.md#web_search), off unless a stage names it. Two APIs
 * are understood: a SearXNG instance's JSON API and the Brave Search API.
 * The API's host goes through the same address rules as `web_fetch`.
 */
import { z } from 'zod';
import { defineTool, failure, success, type ToolOutcome } from './tool.js';
import { webFetchJson } from './web-fetch.js';
import { DEFAULT_WEB_POLICY, type SearchConfig, type SearchKind, type WebPolicy } from './web-policy.js';

export const WEB_SEARCH = 'web_search';

export const SEARCH_KINDS: readonly SearchKind[] = ['searxng', 'brave'];

const BRAVE_URL = 'https://api.search.brave.com/res/v1/web/search';
export function defaultSearchUrl(kind: SearchKind): string | undefined {
  return kind === 'brave' ? BRAVE_URL : undefined;
}

const MAX_RESULTS = 20;

const schema = z
  .object({
    query: z.string().min(1).describe('What to search for.'),
    count: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .optional()
      .describe(`How many results (default 8, at most ${MAX_RESULTS}).`),
  })
  .strict();

interface Hit {
  title: string;
  url: string;
  snippet: string;
}

function hits(kind: SearchKind, body: unknown): Hit[] | undefined {
  const b = body as Record<string, unknown>;
  const list = kind === 'brave' ? (b?.web as Record<string, unknown> | undefined)?.results : b?.results;
  if (!Array.isArray(list)) return undefined;
  return list.map((r: Record<string, unknown>) => ({
    title: String(r.title ?? ''),
    url: String(r.url ?? ''),
    snippet: String((kind === 'brave' ? r.description : r.content) ?? '').replace(/<[^>]+>/g, ''),
  }));
}

export async function webSearch(
  query: string,
  count: number,
  search: SearchConfig,
  policy: WebPolicy,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  const url = new URL(search.kind === 'searxng' ? `${search.url.replace(/\/$/, '')}/search` : search.url);
  url.searchParams.set('q', query);
  if (search.kind === 'searxng') url.searchParams.set('format', 'json');
  else url.searchParams.set('count', String(count));
  const headers: Record<string, string> = search.apiKey ? { 'x-subscription-token': search.apiKey } : {};
  const got = await webFetchJson(url, policy, headers, signal);
  if (!got.ok) return got.outcome;
  const found = hits(search.kind, got.body);
  if (!found)
    return failure(
      'web-fetch-failed',
      `The ${search.kind} search API answered without a result list; check [web.search] url in the user config.`,
    );
  const shown = found.slice(0, count);
  if (shown.length === 0) return success(`No results for "${query}".`);
  return success(
    shown.map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}${h.snippet ? `\n   ${h.snippet.trim()}` : ''}`).join('\n'),
  );
}

export const webSearchTool = defineTool({
  name: WEB_SEARCH,
  description: 'Search the web; returns titles, URLs and snippets. Fetch a result with web_fetch to read it.',
  schema,
  async run(args, ctx) {
    if (!ctx.search)
      return failure(
        'web-search-unconfigured',
        'No search API is configured, so web_search cannot run; the user sets one with [web.search] kind and url in the user config. Use web_fetch on a known URL instead.',
      );
    return webSearch(args.query, args.count ?? 8, ctx.search, ctx.web ?? DEFAULT_WEB_POLICY, ctx.signal);
  },
});
