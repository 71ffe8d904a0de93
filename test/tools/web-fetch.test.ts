/**
 * `web_fetch` against a local HTTP server: loopback is allowed explicitly
 * (`allow_addresses = ["127.0.0.1"]`), and everything else the rules refuse
 * is refused, on the first request and after a redirect.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { isGranted } from '../../src/tools/grants.js';
import { htmlText } from '../../src/tools/web-fetch.js';
import { addressRefusal, DEFAULT_WEB_POLICY, isNonPublicAddress, type WebPolicy } from '../../src/tools/web-policy.js';
import { loadToml } from '../blueprint/helpers.js';
import { makeSandbox } from './fixture.js';

const box = makeSandbox();
let server: Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><style>p{}</style><script>evil()</script></head><body><h1>Title</h1><p>Fish &amp; chips</p></body></html>',
      );
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('y'.repeat(10_000));
    } else if (url.pathname === '/to') {
      res.writeHead(302, { location: url.searchParams.get('where') ?? '/page' });
      res.end();
    } else if (url.pathname === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nothing here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  box.cleanup();
  await new Promise((r) => server.close(r));
});

const loopback: WebPolicy = { ...DEFAULT_WEB_POLICY, allowAddresses: ['127.0.0.1'] };

function fetchWith(url: string, web: WebPolicy = loopback, extra: Record<string, unknown> = {}) {
  return dispatchTool('web_fetch', { url, ...extra }, box.ctx({ web }));
}

describe('web_fetch', () => {
  it('returns the text of a page, HTML reduced to its words', async () => {
    const out = await fetchWith(`http://127.0.0.1:${port}/page`);
    expect(out.isError).toBe(false);
    expect(out.content).toBe(`http://127.0.0.1:${port}/page (HTTP 200, text/html)\n\nTitle\nFish & chips`);
  });

  it('reads at most max_bytes, and says it cut', async () => {
    const out = await fetchWith(`http://127.0.0.1:${port}/big`, { ...loopback, maxBytes: 100 });
    expect(out.content).toContain(`${'y'.repeat(100)}\n[cut at 100 bytes`);
    expect(out.content).not.toContain('y'.repeat(101));
    const asked = await fetchWith(`http://127.0.0.1:${port}/big`, loopback, { max_bytes: 10 });
    expect(asked.content).toContain(`${'y'.repeat(10)}\n[cut at 10 bytes`);
  });

  it('follows a redirect', async () => {
    const out = await fetchWith(`http://127.0.0.1:${port}/to?where=/page`);
    expect(out.content).toMatch(/\/page \(HTTP 200, text\/html\)\n\nTitle/);
  });

  it('refuses loopback, private and link-local addresses by default, before connecting', async () => {
    const before = hits.length;
    for (const url of [
      `http://127.0.0.1:${port}/page`,
      `http://localhost:${port}/page`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const out = await fetchWith(url, DEFAULT_WEB_POLICY);
      expect(out, url).toMatchObject({ isError: true, code: 'web-address-refused', denied: true });
      expect(out.content).toMatch(/^\[web-address-refused\] .* is a private, loopback or link-local address/);
    }
    expect(hits.length).toBe(before);
  });

  it('checks a redirect again: to an address not allowed, to a denied host', async () => {
    const before = hits.length;
    const metadata = await fetchWith(`http://127.0.0.1:${port}/to?where=http://169.254.169.254/`);
    expect(metadata.content).toMatch(/^\[web-address-refused\] 169\.254\.169\.254 is a private/);
    // 127.0.0.2 is loopback too, but only 127.0.0.1 is allowed.
    const other = await fetchWith(`http://127.0.0.1:${port}/to?where=http://127.0.0.2:${port}/page`);
    expect(other.content).toMatch(/^\[web-address-refused\] 127\.0\.0\.2/);
    const denied = await fetchWith(`http://127.0.0.1:${port}/to?where=http://localhost:${port}/page`, {
      ...loopback,
      denyHosts: ['localhost'],
    });
    expect(denied.content).toMatch(/^\[web-host-refused\] localhost is in \[web\] deny_hosts/);
    // Each redirecting request was answered; the page behind none of them was.
    expect(hits.slice(before).every((h) => h.startsWith('/to'))).toBe(true);
  });

  it('keeps to allow_hosts, and to http and https', async () => {
    const out = await fetchWith(`http://127.0.0.1:${port}/page`, { ...loopback, allowHosts: ['docs.example.com'] });
    expect(out.content).toMatch(/^\[web-host-refused\] 127\.0\.0\.1 is not in \[web\] allow_hosts/);
    const file = await fetchWith('file:///etc/passwd');
    expect(file.content).toMatch(/^\[web-host-refused\] web_fetch fetches http:\/\/ and https:\/\/ URLs only/);
  });

  it('refuses content that is not text, and reports an error status and a dead port', async () => {
    expect((await fetchWith(`http://127.0.0.1:${port}/image`)).content).toMatch(/^\[web-not-text\] .* is image\/png/);
    expect((await fetchWith(`http://127.0.0.1:${port}/missing`)).content).toMatch(
      /^\[web-fetch-failed\] .* \(HTTP 404, text\/plain\) answered with an error status:\nnothing here/,
    );
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const dead = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await fetchWith(`http://127.0.0.1:${dead}/`)).content).toMatch(/^\[web-fetch-failed\] .*ECONNREFUSED/);
  });

  it('is given to no stage that does not name it', () => {
    const plain = loadToml('[agent]\nname = "a"\n[stages.main]\n').blueprint!;
    expect(isGranted(plain, 'main', 'web_fetch')).toBe(false);
    const reader = loadToml('[agent]\nname = "a"\n[stages.main]\navailable_tools = ["web_fetch"]\n').blueprint!;
    expect(isGranted(reader, 'main', 'web_fetch')).toBe(true);
  });
});

describe('non-public addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.0.1', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:10.0.0.1', true],
    ['93.184.215.14', false],
    ['2606:4700::1111', false],
    ['fe80::1%eth0', true],
    ['2001:db8::1', true],
    ['64:ff9b:1::a00:1', true],
  ])('%s is non-public: %s', (address, expected) => {
    expect(isNonPublicAddress(address)).toBe(expected);
  });

  // Classification only: no test fetches a non-loopback address.
  it.each([
    ['::ffff:7f00:1', 'IPv4-mapped, in hex'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped, written out'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::127.0.0.1', 'IPv4-compatible, dotted'],
    ['::a9fe:a9fe', 'IPv4-compatible link-local (169.254.169.254)'],
    ['::ffff:0:a00:1', 'IPv4-translated'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::10.0.0.1', 'NAT64, dotted'],
    ['64:FF9B::C0A8:0101', 'NAT64, upper case'],
    ['2002:7f00:1::', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo whose client is 127.0.0.1'],
  ])('%s (%s) carries a non-public IPv4 address', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['::ffff:5db8:d70e', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1'])(
    '%s carries a public IPv4 address and is public',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );

  it('allows an IPv6 form of an allowed IPv4 address, and nothing else with it', () => {
    const policy = { ...DEFAULT_WEB_POLICY, allowAddresses: ['127.0.0.1'] };
    expect(addressRefusal('::ffff:7f00:1', '::ffff:7f00:1', policy)).toBeUndefined();
    expect(addressRefusal('h', '64:ff9b::a00:1', policy)).toContain('64:ff9b::a00:1 (h resolves to it)');
    expect(addressRefusal('h', '::7f00:2', policy)).toContain('private, loopback or link-local');
  });

  it('reduces HTML to text', () => {
    expect(htmlText('<p>a&lt;b</p><!-- x --><p>c&#65;</p>')).toBe('a<b\ncA');
  });
});

describe('HTML to text (htmlparser2)', () => {
  it('decodes every entity: named, decimal and hexadecimal', () => {
    expect(htmlText('<p>it&#x27;s &euro;5 &eacute;t&eacute; &amp; &hellip; &#8364; a&nbsp;b &copy;</p>')).toBe(
      "it's €5 été & … € a b ©",
    );
  });

  it('never leaks attributes, comments, scripts or styles', () => {
    const page = `<html><head><title>T</title><style>p { color: red }</style>
      <script>var secret = "s1";</script></head>
      <body><a href="https://evil.example/?leak" title="ATTR-TEXT" onclick="x()">link</a>
      <img alt="ALT-TEXT" src="x.png"><div data-x="a>b">after</div><!-- comment -->
      <svg><text>SVG</text></svg><noscript>NS</noscript><template>TPL</template></body></html>`;
    const text = htmlText(page);
    expect(text).toBe('T\nlink\nafter');
    for (const leak of ['ATTR', 'ALT', 'evil', 'secret', 'color', 'comment', 'SVG', 'NS', 'TPL', 'b">'])
      expect(text).not.toContain(leak);
  });

  it('puts blocks on lines of their own and folds white space as a browser does, but in <pre>', () => {
    expect(htmlText('<h1>Title</h1><ul><li>one</li><li>two</li></ul>a<br>b\n\n\n\nc   d')).toBe(
      'Title\none\ntwo\na\nb c d',
    );
    expect(htmlText('<p>x</p><pre>a\n  b\n\n\n\nc</pre>')).toBe('x\na\n  b\n\nc');
  });
});
