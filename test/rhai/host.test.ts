// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are Rhai sources, whose back-tick strings use ${}.
/** Host functions a caller lends a script (docs/rhai.md#host-functions): calls, failures, halts. */
import { describe, expect, it } from 'vitest';
import { compile, RhaiHalt, type RhaiHost, RhaiHostError, type RhaiScript } from '../../src/rhai/index.js';

function mustCompile(src: string): RhaiScript {
  const c = compile(src, 'tools/t.rhai');
  if (!c.ok) throw new Error(c.error.message);
  return c.script;
}

const host: RhaiHost = {
  shout: ([s]) => `${String(s).toUpperCase()}!`,
  pair: ([a, b]) => ({ a, b, list: [a, b] }),
  refuse: ([why]) => {
    throw new RhaiHostError(`refused: ${String(why)}`);
  },
  wait: ([what]) => {
    throw new RhaiHalt(`waiting for ${String(what)}`, { what });
  },
  broken: () => {
    throw new Error('socket closed');
  },
};

describe('host functions', () => {
  it('are called function-style and method-style with JS values, and their answers come back as Rhai values', () => {
    const s = mustCompile('let p = pair(1, "x"); [shout("hi"), "hi".shout(), p.a + 1, p.list.len(), type_of(p)]');
    expect(s.run({}, {}, host)).toMatchObject({ ok: true, value: ['HI!', 'HI!', 2, 2, 'map'] });
  });

  it('do not exist without a host: the name is an unknown function', () => {
    const r = mustCompile('shout("hi")').run();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^Function not found: shout \(string\)/);
  });

  it('lose to a script function of the same name', () => {
    expect(mustCompile('fn shout(s) { "quiet" } shout("x")').run({}, {}, host)).toMatchObject({ value: 'quiet' });
  });

  it('fail with a runtime error the script can catch', () => {
    const s = mustCompile('try { refuse("no") } catch (e) { `caught ${e.message}` }');
    expect(s.run({}, {}, host)).toMatchObject({ ok: true, value: 'caught refused: no' });
    const r = mustCompile('refuse("no")').run({}, {}, host);
    expect(r).toMatchObject({ ok: false, error: { code: 'rhai-runtime', line: 1 } });
    if (!r.ok) expect(r.error.message).toBe('refused: no (line 1, position 1) in tools/t.rhai');
  });

  it('turn a JS exception into a runtime error that names the function', () => {
    const r = mustCompile('broken()').run({}, {}, host);
    if (r.ok) throw new Error('expected a failure');
    expect(r.error).toMatchObject({ code: 'rhai-runtime' });
    expect(r.error.message).toMatch(/^broken failed: socket closed/);
  });

  it('halt the script past any try/catch, handing back their payload', () => {
    const s = mustCompile('let x = 1; try { wait("the file") } catch { "caught" }; x');
    const r = s.run({}, {}, host);
    expect(r).toMatchObject({ ok: false, error: { code: 'rhai-halted', payload: { what: 'the file' } } });
    if (!r.ok) expect(r.error.message).toMatch(/^waiting for the file/);
    const inFn = mustCompile('fn f() { wait("inside") } f()').call('f', [], {}, host);
    expect(inFn).toMatchObject({ ok: false, error: { code: 'rhai-halted', payload: { what: 'inside' } } });
  });

  it("answers count against the script's size limits", () => {
    const big: RhaiHost = { big: () => 'x'.repeat(50) };
    const r = mustCompile('big()').run({}, { maxStringSize: 10 }, big);
    expect(r).toMatchObject({ ok: false, error: { code: 'rhai-limit', limit: 'string-size' } });
  });

  it('throw a value the script catches as it is, and which comes back with the error when it does not', () => {
    const failing: RhaiHost = {
      post: () => {
        throw new RhaiHostError('HTTP 429: slow down', { kind: 'rate_limited', status: 429, retry_after: 2 });
      },
    };
    const caught = mustCompile('try { post() } catch (e) { `${e.kind} ${e.status} ${e.retry_after}` }');
    expect(caught.run({}, {}, failing)).toMatchObject({ ok: true, value: 'rate_limited 429 2' });
    const r = mustCompile('let x = 1;\npost()').run({}, {}, failing);
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: 'rhai-runtime',
        message: 'HTTP 429: slow down (line 2, position 1) in tools/t.rhai',
        thrown: { kind: 'rate_limited', status: 429, retry_after: 2 },
      },
    });
  });

  it("hand back a script's own uncaught throw of a map, and nothing for a plain error", () => {
    const thrown = mustCompile('throw #{ message: "down", transient: true };').run();
    expect(thrown).toMatchObject({ ok: false, error: { thrown: { message: 'down', transient: true } } });
    const plain = mustCompile('let x = 1 / 0;').run();
    expect(plain.ok || 'thrown' in plain.error).toBe(false);
  });
});
