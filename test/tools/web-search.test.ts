// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the config syntax under test.
/**
 * `web_search` against a local HTTP server that answers as a SearXNG
 * instance's JSON API and as the Brave Search API do (loopback allowed
 * explicitly), and refused without a configured API.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { dispatchTool } from '../../src/tools/dispatch.js';
import type { SearchConfig } from '../../src/tools/web-policy.js';
import { DEFAULT_WEB_POLICY } from '../../src/tools/web-policy.js';
import { makeSandbox } from './fixture.js';

const box = makeSandbox();
let server: Server;
let port = 0;
const asked: { url: string; token?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push({ url: req.url ?? '', token: req.headers['x-subscription-token'] as string | undefined });
    const q = url.searchParams.get('q') ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/search')
      res.end(
        JSON.stringify({
          results: [
            { title: `About ${q}`, url: 'https://a.example/1', content: 'First <b>hit</b>.' },
            {
              title: 'Second',
              url: 'https://a.example/2',
              content: 'Second hit.',
              publishedDate: '2026-11-30T08:00:00',
            },
          ],
        }),
      );
    else
      res.end(
        JSON.stringify({
          web: {
            results: [
              { title: `Brave on ${q}`, url: 'https://b.example', description: 'From Brave.' },
              {
                title: 'Dated',
                url: 'https://c.example',
                description: 'New.',
                page_age: '2026-12-01T10:00:00',
                age: '6 days ago',
              },
              { title: 'Aged', url: 'https://d.example', description: 'Old.', age: '3 weeks ago' },
            ],
          },
        }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  box.cleanup();
  await new Promise((r) => server.close(r));
});

const web = { ...DEFAULT_WEB_POLICY, allowAddresses: ['127.0.0.1'] };
const search = (s: SearchConfig, args: Record<string, unknown>, policy = web) =>
  dispatchTool('web_search', args, box.ctx({ web: policy, search: s }));

describe('web_search', () => {
  it('lists the results of a SearXNG instance', async () => {
    const out = await search(
      { kind: 'searxng', url: `http://127.0.0.1:${port}` },
      { query: 'durable agents', count: 1 },
    );
    expect(out.content).toBe('1. About durable agents\n   https://a.example/1\n   First hit.');
    expect(asked.at(-1)?.url).toBe('/search?q=durable+agents&format=json');
  });

  it('asks the Brave API with its token', async () => {
    const out = await search(
      { kind: 'brave', url: `http://127.0.0.1:${port}/brave`, apiKey: 'tok' },
      { query: 'temporal' },
    );
    expect(out.content).toMatch(/^1\. Brave on temporal\n {3}https:\/\/b\.example\n {3}From Brave\.\n2\. /);
    expect(asked.at(-1)).toEqual({ url: '/brave?q=temporal&count=8', token: 'tok' });
  });

  it("passes freshness to Brave as written, and shows each result's date when the API knows it", async () => {
    const brave: SearchConfig = { kind: 'brave', url: `http://127.0.0.1:${port}/brave`, apiKey: 'tok' };
    const out = await search(brave, { query: 'latest temporal', count: 3, freshness: 'pw' });
    expect(asked.at(-1)?.url).toBe('/brave?q=latest+temporal&count=3&freshness=pw');
    expect(out.content).toContain('2. Dated\n   https://c.example\n   date: 2026-12-01T10:00:00\n   New.');
    expect(out.content).toContain('3. Aged\n   https://d.example\n   date: 3 weeks ago\n   Old.');
    await search(brave, { query: 'q', freshness: '2026-01-01to2026-06-30' });
    expect(asked.at(-1)?.url).toBe('/brave?q=q&count=8&freshness=2026-01-01to2026-06-30');
  });

  it("maps freshness to SearXNG's time_range, which has no date range", async () => {
    const searxng: SearchConfig = { kind: 'searxng', url: `http://127.0.0.1:${port}` };
    const out = await search(searxng, { query: 'news', freshness: 'pm' });
    expect(asked.at(-1)?.url).toBe('/search?q=news&format=json&time_range=month');
    expect(out.content).toContain('2. Second\n   https://a.example/2\n   date: 2026-11-30T08:00:00\n   Second hit.');
    const asks = asked.length;
    const range = await search(searxng, { query: 'news', freshness: '2026-01-01to2026-02-01' });
    expect(range.code).toBe('bad-argument');
    expect(asked.length).toBe(asks);
  });

  it('refuses a freshness of another form as a bad argument', async () => {
    const out = await search({ kind: 'searxng', url: `http://127.0.0.1:${port}` }, { query: 'x', freshness: 'week' });
    expect(out.code).toBe('bad-argument');
    expect(out.content).toMatch(/pd, pw, pm, py/);
  });

  it('keeps the API host under the address rules', async () => {
    const out = await search({ kind: 'searxng', url: `http://127.0.0.1:${port}` }, { query: 'x' }, DEFAULT_WEB_POLICY);
    expect(out.code).toBe('web-address-refused');
  });

  it('says so when no search API is configured', async () => {
    const out = await dispatchTool('web_search', { query: 'x' }, box.ctx({ web }));
    expect(out.content).toMatch(/^\[web-search-unconfigured\] No search API is configured/);
  });

  it('reads [web.search] from the user config', () => {
    const { config, diagnostics } = parseUserConfig(
      '[web.search]\nkind = "brave"\napi_key = "${BRAVE_KEY}"\n',
      'c.toml',
    );
    expect(diagnostics).toEqual([]);
    expect(config.search).toEqual({
      kind: 'brave',
      url: 'https://api.search.brave.com/res/v1/web/search',
      apiKey: '${BRAVE_KEY}',
    });
    expect(parseUserConfig('[web.search]\nkind = "searxng"\n', 'c.toml').diagnostics[0]?.message).toMatch(
      /needs kind = "searxng" with the url/,
    );
  });
});
