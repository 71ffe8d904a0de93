/**
 * `web_fetch`: the text of one http(s) URL (docs/reference/web.md#web_fetch).
 * Off unless a stage names it in `available_tools`. The host lists and the
 * address rules of `[web]` are checked for the URL and for every redirect,
 * and the connection is made to the address that passed the check, so a
 * name that resolves differently the second time cannot slip through.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Parser } from 'htmlparser2';
import { z } from 'zod';
import { bytesLabel, defineTool, failure, success, type ToolOutcome } from './tool.js';
import { addressRefusal, DEFAULT_WEB_POLICY, hostRefusal, type WebPolicy } from './web-policy.js';

export const WEB_FETCH = 'web_fetch';
const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 30_000;

const schema = z
  .object({
    url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
    max_bytes: z.number().int().min(1).optional().describe('Read at most this many bytes of the body.'),
  })
  .strict();

class Refused extends Error {
  constructor(
    readonly code: 'web-host-refused' | 'web-address-refused',
    message: string,
  ) {
    super(message);
  }
}

/** A lookup that refuses non-public addresses: Node connects only to what it returns. */
function checkedLookup(policy: WebPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const why = addressRefusal(hostname, a.address, policy);
        if (why) return callback(new Refused('web-address-refused', why), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

interface Fetched {
  status: number;
  type: string;
  body: Buffer;
  cut: boolean;
  location?: string;
}

/** A POST's body and the method; a plain GET when absent. */
interface Sending {
  method: 'GET' | 'POST';
  body?: string;
}

function request(
  url: URL,
  policy: WebPolicy,
  maxBytes: number,
  signal?: AbortSignal,
  extraHeaders: Record<string, string> = {},
  sending: Sending = { method: 'GET' },
): Promise<Fetched> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: sending.method,
        lookup: checkedLookup(policy),
        timeout: TIMEOUT_MS,
        headers: {
          'user-agent': 'leviath-web-fetch',
          accept: 'text/*, application/json, application/xml;q=0.9, */*;q=0.1',
          ...extraHeaders,
        },
        ...(signal ? { signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const type = String(res.headers['content-type'] ?? '');
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ status, type, body: Buffer.alloc(0), cut: false, location: res.headers.location });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let cut = false;
        res.on('data', (chunk: Buffer) => {
          if (cut) return;
          const room = maxBytes - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size = maxBytes;
            cut = true;
            res.destroy();
            resolve({ status, type, body: Buffer.concat(chunks), cut: true });
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ status, type, body: Buffer.concat(chunks), cut }));
        res.on('error', (err) => (cut ? undefined : reject(err)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(sending.body);
  });
}

/** A URL's host checked before anything is sent: the lists, and an IP literal's address (no lookup is made for one). */
function checkUrl(url: URL, policy: WebPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Refused('web-host-refused', `web_fetch fetches http:// and https:// URLs only, not ${url.protocol}//.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const listed = hostRefusal(host, policy);
  if (listed) throw new Refused('web-host-refused', listed);
  if (isIP(host)) {
    const why = addressRefusal(host, host, policy);
    if (why) throw new Refused('web-address-refused', why);
  }
}

const TEXT_TYPE =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i;

/** Elements whose content is never read as text. */
const UNREAD = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object']);

/** Elements that stand on lines of their own: a line break before and after them. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'title',
  'tr',
  'ul',
]);

/**
 * An HTML page's readable text, parsed by htmlparser2: the text of its elements with every
 * entity decoded, never an attribute, a comment or the content of scripts, styles and the like;
 * white space folded as a browser folds it, block elements on lines of their own.
 */
export function htmlText(html: string): string {
  let text = '';
  let unread = 0;
  let pre = 0;
  const lineBreak = () => {
    if (text !== '' && !text.endsWith('\n')) text += '\n';
  };
  const parser = new Parser(
    {
      onopentagname(name) {
        if (UNREAD.has(name)) unread++;
        else if (BLOCKS.has(name)) lineBreak();
        if (name === 'pre') pre++;
      },
      onclosetag(name) {
        if (UNREAD.has(name)) unread = Math.max(0, unread - 1);
        else if (BLOCKS.has(name)) lineBreak();
        if (name === 'pre') pre = Math.max(0, pre - 1);
      },
      ontext(data) {
        // As a browser shows it: outside <pre>, a run of white space (line breaks too) is one space.
        if (unread > 0) return;
        if (pre > 0) text += data;
        else {
          const folded = data.replace(/\s+/g, ' ');
          text += text === '' || text.endsWith('\n') ? folded.trimStart() : folded;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return text
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export async function webFetch(
  rawUrl: string,
  policy: WebPolicy,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return failure('bad-argument', `web_fetch: \`${rawUrl}\` is not a URL; pass an absolute http:// or https:// URL.`);
  }
  try {
    for (let hop = 0; ; hop++) {
      checkUrl(url, policy);
      const got = await request(url, policy, maxBytes, signal);
      if (got.location !== undefined) {
        if (hop >= MAX_REDIRECTS)
          return failure(
            'web-fetch-failed',
            `${rawUrl} redirected more than ${MAX_REDIRECTS} times; fetch the final URL directly.`,
          );
        url = new URL(got.location, url);
        continue;
      }
      const type = got.type.split(';')[0]?.trim() ?? '';
      if (type !== '' && !TEXT_TYPE.test(type))
        return failure('web-not-text', `${url.href} is ${type}, not text, so web_fetch does not return it.`);
      const raw = got.body.toString('utf8');
      const text = /html/i.test(type) ? htmlText(raw) : raw;
      const head = `${url.href} (HTTP ${got.status}${type ? `, ${type}` : ''})`;
      const note = got.cut ? `\n[cut at ${bytesLabel(maxBytes)}; pass a larger max_bytes, up to [web] max_bytes]` : '';
      if (got.status >= 400)
        return failure('web-fetch-failed', `${head} answered with an error status:\n${text.slice(0, 2000)}`);
      return success(`${head}\n\n${text}${note}`);
    }
  } catch (err) {
    if (err instanceof Refused) return failure(err.code, err.message, { denied: true });
    const reason = err instanceof Error ? err.message : String(err);
    return failure('web-fetch-failed', `${url.href} could not be fetched (${reason}); check the URL or try later.`);
  }
}

/** A JSON API's answer (a search API), fetched under the same rules as a page. */
export async function webFetchJson(
  url: URL,
  policy: WebPolicy,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ ok: true; body: unknown } | { ok: false; outcome: ToolOutcome }> {
  try {
    checkUrl(url, policy);
    const got = await request(url, policy, policy.maxBytes, signal, headers);
    if (got.status < 200 || got.status >= 300)
      return {
        ok: false,
        outcome: failure(
          'web-fetch-failed',
          `${url.origin} answered HTTP ${got.status}; check the search API's configuration.`,
        ),
      };
    return { ok: true, body: JSON.parse(got.body.toString('utf8')) };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, outcome: failure(err.code, err.message, { denied: true }) };
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      outcome: failure('web-fetch-failed', `${url.origin} could not be asked (${reason}); try later.`),
    };
  }
}

/** What a script tool's `http_get` or `http_post` got: the body as text, or why there is none. */
export type ScriptHttp = { ok: true; text: string } | { ok: false; refused: boolean; message: string };

/**
 * A script tool's request (docs/reference/script-tools.md#host-functions), under
 * the same `[web]` rules as `web_fetch`: every hop is checked, a POST answered
 * with 301, 302 or 303 goes on as a GET (as browsers do), and the body is cut
 * at `maxBytes`. A status outside 2xx is a failure the script may catch.
 */
export async function scriptHttp(
  rawUrl: string,
  sending: Sending,
  headers: Record<string, string>,
  policy: WebPolicy,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ScriptHttp> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return {
      ok: false,
      refused: false,
      message: `\`${rawUrl}\` is not a URL; pass an absolute http:// or https:// URL`,
    };
  }
  let now = sending;
  try {
    for (let hop = 0; ; hop++) {
      checkUrl(url, policy);
      const got = await request(
        url,
        policy,
        maxBytes,
        signal,
        { 'user-agent': 'leviath-script-tool', ...headers },
        now,
      );
      if (got.location !== undefined) {
        if (hop >= MAX_REDIRECTS)
          return { ok: false, refused: false, message: `${rawUrl} redirected more than ${MAX_REDIRECTS} times` };
        if (got.status !== 307 && got.status !== 308) now = { method: 'GET' };
        url = new URL(got.location, url);
        continue;
      }
      const text = got.body.toString('utf8');
      if (got.status < 200 || got.status >= 300)
        return { ok: false, refused: false, message: `${url.href} answered HTTP ${got.status}: ${text.slice(0, 500)}` };
      return { ok: true, text };
    }
  } catch (err) {
    if (err instanceof Refused) return { ok: false, refused: true, message: err.message };
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, refused: false, message: `${url.href} could not be reached (${reason})` };
  }
}

export const webFetchTool = defineTool({
  name: WEB_FETCH,
  description:
    'Fetch the text of a web page or document at an http(s) URL (HTML is reduced to its text). Private and local addresses are refused unless the user allows them.',
  schema,
  async run(args, ctx) {
    const policy = ctx.web ?? DEFAULT_WEB_POLICY;
    const limit = Math.min(args.max_bytes ?? policy.maxBytes, policy.maxBytes);
    return webFetch(args.url, policy, limit, ctx.signal);
  },
});
