// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/**
 * A call of a script tool through the dispatcher (docs/reference/script-tools.md):
 * its arguments checked against its schema, its permissions, what it returns,
 * its host functions under the rules of the tools they mirror, and its limits,
 * each a coded result the model reads.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parametersSchema, parseAnnotations } from '../../src/blueprint/tool-declaration.js';
import type { ScriptToolDef } from '../../src/shapes/frozen-blueprint.js';
import type { ScriptPermissions } from '../../src/tools/builtin-names.js';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { encodeUri } from '../../src/tools/script-host.js';
import { MAX_HOST_CALLS, resultText } from '../../src/tools/script-run.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { DEFAULT_WEB_POLICY } from '../../src/tools/web-policy.js';
import { makeSandbox } from './fixture.js';

const box = makeSandbox();
let server: Server;
let base = '';
const posted: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/owners') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ payments: 'team-billing', agent: req.headers['x-team'] ?? '' }));
      } else if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<html><body><article>${'<p>The outage began at 10:00 UTC when the billing database ran out of connections. </p>'.repeat(4)}</article></body></html>`,
        );
      } else if (req.url === '/submit' && req.method === 'POST') {
        posted.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end('filed');
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such page');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  box.cleanup();
  await new Promise((r) => server.close(r));
});

function tool(source: string, path = 'tools/t.rhai'): ScriptToolDef {
  const declared = parseAnnotations(source);
  if (!declared.ok) throw new Error(declared.problem);
  const { name, description } = declared.decl;
  return { name, description, parameters: parametersSchema(declared.decl), path, source };
}

function ctxWith(tools: ScriptToolDef[], extra: Partial<ToolContext> = {}, permissions: ScriptPermissions = {}) {
  return box.ctx({
    scripts: { tools, permissions, shellTimeoutSecs: 60 },
    web: { ...DEFAULT_WEB_POLICY, allowAddresses: ['127.0.0.1'] },
    ...extra,
  });
}

function call(source: string, args: unknown = {}, extra: Partial<ToolContext> = {}, permissions?: ScriptPermissions) {
  const def = tool(source);
  return dispatchTool(def.name, args, ctxWith([def], extra, permissions));
}

const ECHO = '// @tool echo\n// @param text string required "what to say"\n// @param times integer optional\n';

describe('what a script tool answers', () => {
  it('a string as it is, () as nothing, anything else as JSON', async () => {
    expect(await call(`${ECHO}params.text`, { text: 'hi' })).toEqual({
      content: 'hi',
      isError: false,
      modifiedPaths: [],
    });
    expect((await call(`${ECHO}()`, { text: 'hi' })).content).toBe('');
    expect(
      (await call(`${ECHO}#{ said: params.text, n: params.times ?? 1, list: [1.5, true] }`, { text: 'hi' })).content,
    ).toBe('{"said":"hi","n":1,"list":[1.5,true]}');
    expect(resultText(7)).toBe('7');
  });

  it('reads a missing optional parameter as ()', async () => {
    expect((await call(`${ECHO}if params.times == () { "once" } else { "more" }`, { text: 'x' })).content).toBe('once');
  });
});

describe('its arguments and permissions', () => {
  it('are checked against the declared schema before anything runs: bad-argument', async () => {
    const missing = await call(`${ECHO}params.text`, {});
    expect(missing).toMatchObject({ isError: true, code: 'bad-argument' });
    expect(missing.content).toContain('missing required argument `text`');
    const wrong = await call(`${ECHO}params.text`, { text: 3 });
    expect(wrong.content).toContain('`text`: must be string');
    expect((await call(`${ECHO}params.text`, '[1]')).content).toContain('must be a JSON object');
  });

  it('answer to [tool_permissions] like any tool: deny, and ask with nobody to answer', async () => {
    const denied = await call(`${ECHO}params.text`, { text: 'x' }, { permissions: { tools: { echo: 'deny' } } });
    expect(denied).toMatchObject({ code: 'permission-denied', denied: true });
    const ask = { permissions: { tools: { echo: 'ask' as const } } };
    expect(await call(`${ECHO}params.text`, { text: 'x' }, ask)).toMatchObject({ code: 'permission-ask-unattended' });
    expect(await call(`${ECHO}params.text`, { text: 'x' }, { ...ask, unattended: false })).toMatchObject({
      code: 'permission-ask',
    });
    expect(
      await call(`${ECHO}params.text`, { text: 'x' }, { ...ask, unattended: false, approved: true }),
    ).toMatchObject({
      content: 'x',
      isError: false,
    });
  });

  it('a name that is no tool of the context is unknown-tool', async () => {
    const out = await dispatchTool('nope', {}, ctxWith([tool(`${ECHO}1`)]));
    expect(out.code).toBe('unknown-tool');
  });
});

describe('failures and limits', () => {
  it('an error of the script is script-tool-failed, naming the line', async () => {
    const out = await call('// @tool t\nlet x = 1;\nthrow `no owner for ${x}`;');
    expect(out).toMatchObject({ isError: true, code: 'script-tool-failed' });
    expect(out.content).toContain('t failed: Runtime error: no owner for 1 (line 3, position 1) in tools/t.rhai');
  });

  it('a loop that never ends stops at the operation limit: script-tool-limit', async () => {
    const out = await call('// @tool spin\nlet n = 0;\nloop { n += 1; }');
    expect(out).toMatchObject({ isError: true, code: 'script-tool-limit' });
    expect(out.content).toMatch(/maximum of 100000 operations/);
  });

  it('so do deep recursion and a runaway string', async () => {
    expect((await call('// @tool deep\nfn f(n) { f(n + 1) }\nf(0)')).content).toMatch(/script-tool-limit.*call depth/);
    expect((await call('// @tool grow\nlet s = "ab";\nloop { s += s; }')).content).toMatch(/script-tool-limit.*String/);
  });

  it('more host calls than a call may make is script-tool-limit too', async () => {
    const out = await call('// @tool many\nlet n = 0;\nloop { env_var("HOME"); n += 1; }');
    expect(out.code).toBe('script-tool-limit');
    expect(out.content).toContain(`more than ${MAX_HOST_CALLS} times`);
  });

  it('a cancelled call does no more host calls', async () => {
    const signal = AbortSignal.abort();
    const out = await call('// @tool t\nwrite_file("never.txt", "x")', {}, { signal });
    expect(out).toMatchObject({ code: 'script-tool-failed', content: expect.stringContaining('was cancelled') });
    expect(existsSync(join(box.work, 'never.txt'))).toBe(false);
  });

  it('a host function called with the wrong arguments fails as an unknown function would', async () => {
    const out = await call('// @tool t\nread_file(3)');
    expect(out.code).toBe('script-tool-failed');
    expect(out.content).toContain('it is called as read_file(path)');
  });
});

describe('host functions that touch the workdir', () => {
  it('read_file, write_file and shell work inside the workdir, in the command sandbox', async () => {
    const out = await call(
      '// @tool t\nlet a = read_file("a.txt");\nwrite_file("out/copy.txt", a.to_upper());\nlet listed = shell("cat out/copy.txt | wc -l");\n#{ first: a.split("\\n")[0], lines: listed.trim(), wrote: read_file("out/copy.txt").len() }',
    );
    expect(out).toMatchObject({ isError: false, modifiedPaths: ['out/copy.txt'] });
    expect(JSON.parse(out.content)).toEqual({ first: 'alpha', lines: '3', wrote: 17 });
    expect(readFileSync(join(box.work, 'out/copy.txt'), 'utf8')).toBe('ALPHA\nBETA\nGAMMA\n');
  });

  it('keeps confinement: a path out of the workdir is refused, and an uncaught refusal is script-host-refused', async () => {
    const out = await call('// @tool t\nread_file("link-out")');
    expect(out).toMatchObject({ isError: true, code: 'script-host-refused' });
    expect(out.content).toMatch(/read_file: .*outside the working directory/);
    expect(box.outsideSnapshot()).not.toHaveProperty(join(box.secret, 'new.txt'));
    const caught = await call('// @tool t\ntry { read_file("../secret/secret.txt") } catch (e) { "kept out" }');
    expect(caught).toMatchObject({ isError: false, content: 'kept out' });
  });

  it('a file that is not there is an ordinary failure the script can test for', async () => {
    const out = await call('// @tool t\ntry { read_file("missing.txt") } catch (e) { `none: ${e.message}` }');
    expect(out.content).toMatch(/^none: read_file: missing.txt does not exist/);
    expect((await call('// @tool t\nread_file("missing.txt")')).code).toBe('script-tool-failed');
  });

  it('a failing command is a failure with its exit code and output', async () => {
    const out = await call('// @tool t\nshell("echo partial; exit 3")');
    expect(out.code).toBe('script-tool-failed');
    expect(out.content).toContain('exited with code 3');
    expect(out.content).toContain('partial');
  });

  it('each runs only where the tool it mirrors would run without asking', async () => {
    const ask = { permissions: { tools: { write_file: 'ask' as const } } };
    const out = await call('// @tool t\nwrite_file("x.txt", "x")', {}, ask);
    expect(out.code).toBe('script-host-refused');
    expect(out.content).toMatch(/write_file inside a script tool runs only where `write_file` itself would run/);
    expect(out.content).toContain('nobody is asked for in the middle of a script');
    const deny = { permissions: { tools: { write_file: 'deny' as const } } };
    expect((await call('// @tool t\nwrite_file("x.txt", "x")', {}, deny)).content).toContain(
      '[tool_permissions] denies `write_file` here',
    );
    const safe = { permissions: { tools: { shell: 'ask' as const } }, safeCommands: ['echo'] };
    expect((await call('// @tool t\nshell("echo ok")', {}, safe)).content).toBe('ok\n');
    expect((await call('// @tool t\nshell("touch y")', {}, safe)).code).toBe('script-host-refused');
  });

  it('[tool_script_permissions] denies a function, or allows it over the stage', async () => {
    const denied = await call('// @tool t\nread_file("a.txt")', {}, {}, { read_file: 'deny' });
    expect(denied.content).toContain('read_file is denied to script tools by [tool_script_permissions]');
    const stage = { permissions: { tools: { read_file: 'deny' as const } } };
    expect((await call('// @tool t\nread_file("a.txt")', {}, stage)).code).toBe('script-host-refused');
    expect((await call('// @tool t\nread_file("a.txt")', {}, stage, { read_file: 'allow' })).content).toBe(
      'alpha\nbeta\ngamma\n',
    );
  });

  it('a retried call that wrote says it may have run before', async () => {
    const out = await call('// @tool t\nwrite_file("again.txt", "x"); "done"', {}, { attempt: 2 });
    expect(out.content).toMatch(/^done\nnote: this call is a retry \(attempt 2\)/);
    expect((await call('// @tool t\nread_file("a.txt").len()', {}, { attempt: 2 })).content).toBe('17');
  });
});

describe('env_var', () => {
  it('reads only what a sandboxed command would see', async () => {
    const env = { HOME: '/home/x', LEVIATH_TEAM: 'billing', API_TOKEN: 'secret' };
    expect((await call('// @tool t\nenv_var("HOME")', {}, { env })).content).toBe('/home/x');
    const withheld = await call('// @tool t\nenv_var("API_TOKEN")', {}, { env });
    expect(withheld.code).toBe('script-host-refused');
    expect(withheld.content).toContain('`API_TOKEN` is withheld');
    expect(withheld.content).not.toContain('secret');
    const sandbox = { kind: 'namespace' as const, env: ['LEVIATH_TEAM'], readRoots: [] };
    expect((await call('// @tool t\nenv_var("LEVIATH_TEAM")', {}, { env, sandbox })).content).toBe('billing');
    expect((await call('// @tool t\nenv_var("LANG")', {}, { env })).content).toMatch(
      /script-tool-failed.*`LANG` is not set/,
    );
  });
});

describe('http_get and http_post', () => {
  it('reach the web under [web], with headers, and hand back the body', async () => {
    const out = await call(
      `// @tool t\nlet o = parse_json(http_get("${base}/owners", #{ "x-team": "ops" }));\n\`\${o.payments} \${o.agent}\``,
    );
    expect(out.content).toBe('team-billing ops');
    const posts = await call(`// @tool t\nhttp_post("${base}/submit", to_json(#{ sev: 1 }))`);
    expect(posts.content).toBe('filed');
    expect(posted).toEqual(['{"sev":1}']);
  });

  it('an error status is a failure; an address [web] refuses is script-host-refused', async () => {
    expect((await call(`// @tool t\nhttp_get("${base}/nope")`)).content).toMatch(/answered HTTP 404: no such page/);
    const refused = await call(`// @tool t\nhttp_get("${base}/owners")`, {}, { web: DEFAULT_WEB_POLICY });
    expect(refused.code).toBe('script-host-refused');
    expect(refused.content).toMatch(/127\.0\.0\.1/);
    expect((await call(`// @tool t\nhttp_get("${base}/owners")`, {}, {}, { http_get: 'deny' })).code).toBe(
      'script-host-refused',
    );
  });

  it("runs the original researcher's web_fetch script, renamed so the built-in does not shadow it", async () => {
    const source = readFileSync('test/fixtures/leviath-rs/agents/researcher/tools/web_fetch.rhai', 'utf8').replace(
      '// @tool web_fetch',
      '// @tool page_text',
    );
    const out = await call(source, { url: `${base}/page` });
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^The outage began at 10:00 UTC/);
    expect(out.content).not.toContain('<p>');
  });
});

describe('the pure helpers', () => {
  it('encode_uri and html_to_text', async () => {
    expect(encodeUri('a b&c/é~')).toBe('a%20b%26c%2F%C3%A9~');
    const out = await call('// @tool t\n[encode_uri("q=1 2"), html_to_text("<p>Fish &amp; chips</p>")]');
    expect(JSON.parse(out.content)).toEqual(['q%3D1%202', 'Fish & chips']);
  });
});

describe('several calls of one script', () => {
  it('each starts afresh, and the script sees the answers in the order it asked', async () => {
    writeFileSync(join(box.work, 'n.txt'), '1');
    const def = tool('// @tool bump\nlet n = parse_int(read_file("n.txt"));\nwrite_file("n.txt", `${n + 1}`);\nn');
    const ctx = ctxWith([def]);
    expect((await dispatchTool('bump', {}, ctx)).content).toBe('1');
    expect((await dispatchTool('bump', {}, ctx)).content).toBe('2');
    expect(readFileSync(join(box.work, 'n.txt'), 'utf8')).toBe('3');
  });
});
