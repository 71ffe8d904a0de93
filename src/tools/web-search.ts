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

/**
 * `freshness`, the original Leviath's argument: results of the past day,
 * week, month or year, or of a date range. Brave takes each as written;
 * SearXNG's `time_range` has the four periods and no range.
 */
const FRESHNESS = /^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$/;
const SEARXNG_RANGES: Readonly<Record<string, string>> = { pd: 'day', pw: 'week', pm: 'month', py: 'year' };

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
    freshness: z
      .string()
      .regex(FRESHNESS, 'freshness is pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD')
      .optional()
      .describe(
        "Only results of this age: pd (past day), pw (past week), pm (past month), py (past year), or YYYY-MM-DDtoYYYY-MM-DD. Use it whenever 'latest' or 'current' matters.",
      ),
  })
  .strict();

interface Hit {
  title: string;
  url: string;
  snippet: string;
  /** When the page was published, as the API knows it (Brave's `page_age`, else `age`; SearXNG's `publishedDate`). */
  date?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function hits(kind: SearchKind, body: unknown): Hit[] | undefined {
  const b = body as Record<string, unknown>;
  const list = kind === 'brave' ? (b?.web as Record<string, unknown> | undefined)?.results : b?.results;
  if (!Array.isArray(list)) return undefined;
  return list.map((r: Record<string, unknown>) => {
    const date = kind === 'brave' ? (text(r.page_age) ?? text(r.age)) : text(r.publishedDate);
    return {
      title: String(r.title ?? ''),
      url: String(r.url ?? ''),
      snippet: String((kind === 'brave' ? r.description : r.content) ?? '').replace(/<[^>]+>/g, ''),
      ...(date ? { date } : {}),
    };
  });
}

export async function webSearch(
  ask: { query: string; count: number; freshness?: string },
  search: SearchConfig,
  policy: WebPolicy,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  const { query, count, freshness } = ask;
  const url = new URL(search.kind === 'searxng' ? `${search.url.replace(/\/$/, '')}/search` : search.url);
  url.searchParams.set('q', query);
  if (search.kind === 'searxng') {
    url.searchParams.set('format', 'json');
    if (freshness !== undefined) {
      const range = SEARXNG_RANGES[freshness];
      if (!range)
        return failure(
          'bad-argument',
          `The SearXNG search API takes freshness pd, pw, pm or py, not the date range "${freshness}"; ask for the period that holds it.`,
        );
      url.searchParams.set('time_range', range);
    }
  } else {
    url.searchParams.set('count', String(count));
    if (freshness !== undefined) url.searchParams.set('freshness', freshness);
  }
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
    shown
      .map(
        (h, i) =>
          `${i + 1}. ${h.title}\n   ${h.url}${h.date ? `\n   date: ${h.date}` : ''}${h.snippet ? `\n   ${h.snippet.trim()}` : ''}`,
      )
      .join('\n'),
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
    return webSearch(
      { query: args.query, count: args.count ?? 8, ...(args.freshness ? { freshness: args.freshness } : {}) },
      ctx.search,
      ctx.web ?? DEFAULT_WEB_POLICY,
      ctx.signal,
    );
  },
});
