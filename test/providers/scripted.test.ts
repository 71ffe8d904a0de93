import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import {
  getProvider,
  isProviderError,
  parseScript,
  prefixDigests,
  promptDigest,
  registerScript,
  resetScriptedCalls,
  SCRIPT_FINISHED_TEXT,
  type ScriptInput,
  scriptedCalls,
  toActivityFailure,
  unregisterScript,
} from '../../src/providers/index.js';
import type { InferenceMeta, InferenceRequest } from '../../src/providers/provider.js';
import { STREAM_PIECES } from '../../src/providers/scripted.js';

const dir = mkdtempSync(join(tmpdir(), 'lev-scripted-'));

function request(
  model: string,
  meta: Partial<InferenceMeta> = {},
  extra: Partial<InferenceRequest> = {},
): InferenceRequest {
  return {
    model,
    system: [{ text: '## pinned\nBe brief.' }],
    messages: [{ role: 'user', content: 'Say hello and list the files.' }],
    tools: [],
    maxTokens: 512,
    meta: { runId: 'run-s', stage: 'work', turn: 0, purpose: 'turn', attempt: 1, ...meta },
    ...extra,
  };
}

const DEMO: ScriptInput = {
  turns: [
    { text: 'Looking around.', tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] },
    {
      text: 'Reading two files.',
      tool_calls: [
        { name: 'read_file', arguments: { path: 'a.ts' } },
        { name: 'read_file', arguments: { path: 'b.ts' } },
      ],
    },
    { text: 'All done.' },
  ],
};

const scripted = getProvider('scripted:demo', {});

beforeEach(() => {
  registerScript('demo', DEMO);
  resetScriptedCalls();
});
afterEach(() => unregisterScript('demo'));

function codeOf(fn: () => unknown): Promise<string> {
  return Promise.resolve()
    .then(fn)
    .then(
      () => 'no error',
      (err: unknown) => (isLevError(err) ? err.code : `not a LevError: ${String(err)}`),
    );
}

describe('scripted turns', () => {
  it('plays the script in order of meta.turn with deterministic tool call ids', async () => {
    const first = await scripted.infer(request('scripted:demo', { turn: 0 }));
    expect(first.text).toBe('Looking around.');
    expect(first.toolCalls).toEqual([{ id: 'call_0_0', name: 'list_files', arguments: { path: '.' } }]);
    expect(first.stopReason).toBe('tool_calls');
    const second = await scripted.infer(request('scripted:demo', { turn: 1 }));
    expect(second.toolCalls.map((c) => c.id)).toEqual(['call_1_0', 'call_1_1']);
    const third = await scripted.infer(request('scripted:demo', { turn: 2 }));
    expect(third).toMatchObject({ text: 'All done.', toolCalls: [], stopReason: 'end' });
  });

  it('gives the same answer to the same request, even from a fresh provider (a retried activity)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(10), fc.integer({ min: 1, max: 5 }), async (turn, attempt) => {
        const a = await scripted.infer(request('scripted:demo', { turn, attempt }));
        const b = await getProvider('scripted:demo', {}).infer(request('scripted:demo', { turn, attempt }));
        expect(b).toEqual(a);
      }),
      { numRuns: 40 },
    );
  });

  it('answers with a short final text past the end of the script', async () => {
    const res = await scripted.infer(request('scripted:demo', { turn: 3 }));
    expect(res).toMatchObject({ text: SCRIPT_FINISHED_TEXT, toolCalls: [], invalidToolCalls: [], stopReason: 'end' });
  });

  it("answers a fan-out worker from its item's own turns, and other workers from the rest", async () => {
    registerScript('items', {
      turns: [
        { stage: 'work', item: 'src/b.ts', text: 'b needs a fix' },
        { stage: 'work', text: 'looks fine' },
        { item: 'w9', text: 'global turn of w9' },
        { text: 'global turn' },
      ],
    });
    const ask = (runId: string, stage: string) =>
      scripted.infer(request('scripted:items', { runId, stage, stageTurn: 0 })).then((r) => r.text);
    expect(await ask('run-1/src%2Fb%2Ets', 'work')).toBe('b needs a fix');
    expect(await ask('run-1/src%2Fa%2Ets', 'work')).toBe('looks fine');
    expect(await ask('run-1', 'work')).toBe('looks fine');
    expect(await ask('run-1/w9', 'other')).toBe('global turn of w9');
    expect(await ask('run-1/w8', 'other')).toBe('global turn');
    unregisterScript('items');
  });

  it('wraps around when repeat is set', async () => {
    registerScript('loop', { repeat: true, turns: [{ text: 'tick' }, { text: 'tock' }] });
    const texts = [];
    for (let turn = 0; turn < 5; turn++) texts.push((await scripted.infer(request('scripted:loop', { turn }))).text);
    expect(texts).toEqual(['tick', 'tock', 'tick', 'tock', 'tick']);
    unregisterScript('loop');
  });

  it('indexes a stage with its own turns by meta.stageTurn and asks for it when missing', async () => {
    registerScript('staged', {
      turns: [
        { stage: 'plan', text: 'plan 0' },
        { text: 'global 0' },
        { stage: 'plan', text: 'plan 1' },
        { stage: 'build', text: 'build 0' },
      ],
    });
    const at = async (meta: Partial<InferenceMeta>) => (await scripted.infer(request('scripted:staged', meta))).text;
    expect(await at({ stage: 'plan', turn: 7, stageTurn: 1 })).toBe('plan 1');
    expect(await at({ stage: 'build', turn: 8, stageTurn: 0 })).toBe('build 0');
    expect(await at({ stage: 'build', turn: 9, stageTurn: 1 })).toBe(SCRIPT_FINISHED_TEXT);
    expect(await at({ stage: 'review', turn: 0 })).toBe('global 0');
    expect(await codeOf(() => at({ stage: 'plan', turn: 0 }))).toBe('scripted-stage-turn-missing');
    unregisterScript('staged');
  });

  it('emits malformed arguments on purpose as an invalid tool call', async () => {
    registerScript('broken', {
      turns: [
        { tool_calls: [{ name: 'write_file', arguments_raw: '{"path": "x.ts", "content": ' }, { name: 'noop' }] },
      ],
    });
    const res = await scripted.infer(request('scripted:broken'));
    expect(res.toolCalls).toEqual([{ id: 'call_0_1', name: 'noop', arguments: {} }]);
    expect(res.invalidToolCalls).toEqual([
      expect.objectContaining({ id: 'call_0_0', name: 'write_file', raw: '{"path": "x.ts", "content": ' }),
    ]);
    expect(res.invalidToolCalls[0]!.error).toMatch(/not valid JSON/);
    expect(res.stopReason).toBe('tool_calls');
    unregisterScript('broken');
  });

  it('estimates usage from characters and reports a prompt size only when the script says so', async () => {
    const req = request('scripted:demo', { turn: 2 });
    const res = await scripted.infer(req);
    const chars = '## pinned\nBe brief.'.length + 'Say hello and list the files.'.length;
    expect(res.usage).toEqual({
      promptTokens: Math.ceil(chars / 4),
      completionTokens: Math.ceil('All done.'.length / 4),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(res.reportedPromptTokens).toBeUndefined();
    registerScript('calib', { turns: [{ text: 'x', reported_prompt_tokens: 4321 }] });
    expect((await scripted.infer(request('scripted:calib'))).reportedPromptTokens).toBe(4321);
    unregisterScript('calib');
  });

  it('waits latency_ms before answering and stops waiting when aborted', async () => {
    registerScript('slow', { latency_ms: 60, turns: [{ text: 'late' }, { text: 'later', latency_ms: 2000 }] });
    const t0 = Date.now();
    await scripted.infer(request('scripted:slow'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
    // Without the abort the 2 s turn would answer instead of rejecting.
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error('cancelled')), 30);
    await expect(scripted.infer(request('scripted:slow', { turn: 1 }), { signal: ctrl.signal })).rejects.toThrow(
      'cancelled',
    );
    unregisterScript('slow');
  });

  it('fails chosen attempts with a provider error class, then serves the same answer', async () => {
    registerScript('flaky', {
      turns: [{ text: 'finally', fail: { kind: 'rate-limit', attempts: 2, retry_after_ms: 100 } }],
    });
    for (const attempt of [1, 2]) {
      const err = await scripted.infer(request('scripted:flaky', { attempt })).catch((e: unknown) => e);
      expect(isProviderError(err) && err.kind).toBe('rate-limit');
      expect(toActivityFailure(err)).toMatchObject({ nonRetryable: false, nextRetryDelay: 100 });
    }
    expect((await scripted.infer(request('scripted:flaky', { attempt: 3 }))).text).toBe('finally');
    expect(scriptedCalls().map((c) => c.attempt)).toEqual([3]);
    unregisterScript('flaky');
  });
});

describe('scripted summaries and edge choices', () => {
  it('summarises the messages deterministically within maxTokens', async () => {
    const messages: InferenceRequest['messages'] = [
      { role: 'user', content: 'The build fails on line 12\nbecause of a typo' },
      { role: 'assistant', content: 'Fixed the typo in parser.ts and reran.' },
    ];
    const res = await scripted.infer(request('scripted:demo', { purpose: 'summary', turn: 1 }, { messages }));
    expect(res.text).toBe('summary of 2 messages: The build fails on line  | Fixed the typo in parser');
    expect(res.toolCalls).toEqual([]);
    const short = await scripted.infer(request('scripted:demo', { purpose: 'summary' }, { messages, maxTokens: 5 }));
    expect(short.text).toBe('summary of 2 message');
  });

  it('chooses the scripted edge, else the first one offered, else DONE', async () => {
    registerScript('edges', { choices: { plan: 'review' } });
    const choose = async (meta: Partial<InferenceMeta>) =>
      (await scripted.infer(request('scripted:edges', { purpose: 'edge-choice', ...meta }))).text;
    expect(await choose({ stage: 'plan', options: ['build', 'review'] })).toBe('review');
    expect(await choose({ stage: 'build', options: ['test', 'ship'] })).toBe('test');
    expect(await choose({ stage: 'build' })).toBe('DONE');
    unregisterScript('edges');
  });
});

describe('scripted recording', () => {
  it('records how far two calls read the same front: the tools, then each system block', () => {
    const tool = { name: 'read_file', description: 'Reads a file.', parameters: { type: 'object' } };
    const a = request('scripted:demo', {}, { tools: [tool], system: [{ text: 'task' }, { text: 'plan it' }] });
    const b = request('scripted:demo', {}, { tools: [tool], system: [{ text: 'task' }, { text: 'build it' }] });
    const c = request('scripted:demo', {}, { tools: [], system: [{ text: 'task' }, { text: 'plan it' }] });
    const [pa, pb, pc] = [prefixDigests(a), prefixDigests(b), prefixDigests(c)];
    expect(pa).toHaveLength(3);
    expect(pb.slice(0, 2)).toEqual(pa.slice(0, 2));
    expect(pb[2]).not.toBe(pa[2]);
    // The tools come first, so other tools change every prefix.
    for (const i of [0, 1, 2]) expect(pc[i]).not.toBe(pa[i]);
  });

  it('keeps every served call in memory and appends it to LEVIATH_SCRIPTED_LOG', async () => {
    const log = join(dir, 'served.jsonl');
    const logged = getProvider('scripted:demo', { LEVIATH_SCRIPTED_LOG: log });
    await logged.infer(request('scripted:demo', { turn: 0 }));
    await logged.infer(request('scripted:demo', { turn: 1, attempt: 2, stage: 'plan' }));
    await logged.infer(request('scripted:demo', { purpose: 'summary', turn: 2 }));
    const shout = { name: 'shout', description: 'Says it loudly', parameters: { type: 'object' } };
    await logged.infer(request('scripted:demo', { turn: 3 }, { tools: [shout] }));
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map(({ served_at_ms, prompt, prefixes, ...rest }) => rest)).toEqual([
      { runId: 'run-s', stage: 'work', turn: 0, purpose: 'turn', attempt: 1, tools: [] },
      { runId: 'run-s', stage: 'plan', turn: 1, purpose: 'turn', attempt: 2, tools: [] },
      { runId: 'run-s', stage: 'work', turn: 2, purpose: 'summary', attempt: 1, tools: [] },
      { runId: 'run-s', stage: 'work', turn: 3, purpose: 'turn', attempt: 1, tools: ['shout'] },
    ]);
    for (const l of lines) expect(typeof l.served_at_ms).toBe('number');
    // The same prompt whatever the call's meta; another prompt, another digest.
    expect(new Set(lines.slice(0, 3).map((l) => l.prompt)).size).toBe(1);
    expect(lines[0].prompt).toBe(promptDigest(request('scripted:other', { runId: 'elsewhere', turn: 9 })));
    expect(lines[0].prompt).toMatch(/^[0-9a-f]{64}$/);
    expect(promptDigest(request('scripted:demo', {}, { maxTokens: 511 }))).not.toBe(lines[0].prompt);
    expect(scriptedCalls()).toEqual(lines);
    resetScriptedCalls();
    expect(scriptedCalls()).toEqual([]);
  });

  it('lets another process play a script file from LEVIATH_SCRIPT and log what it served', () => {
    const script = join(dir, 'child.toml');
    writeFileSync(script, '[[turns]]\ntext = "from the file"\n');
    const log = join(dir, 'child.jsonl');
    const code = `
      import { getProvider } from ${JSON.stringify(join(process.cwd(), 'src/providers/index.ts'))};
      const p = getProvider('scripted:any');
      const meta = { runId: 'r2', stage: 's', turn: 0, purpose: 'turn', attempt: 1 };
      const res = await p.infer({ model: 'scripted:any', system: [], messages: [], tools: [], maxTokens: 10, meta });
      console.log(res.text);`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      env: { ...process.env, LEVIATH_SCRIPT: script, LEVIATH_SCRIPTED_LOG: log },
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('from the file');
    expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject({ runId: 'r2', turn: 0, purpose: 'turn' });
    // A second process compiles the providers with tsx, which takes longer than a unit test's 20 s on a loaded machine.
  }, 120_000);
});

describe('scripted script files', () => {
  it('loads scripted:<path>.toml relative to the working directory and rereads it when it changes', async () => {
    const file = join(dir, 'by-path.toml');
    writeFileSync(
      file,
      'latency_ms = 0\n[[turns]]\ntext = "one"\n[[turns.tool_calls]]\nname = "grep"\narguments = { pattern = "x" }\n',
    );
    const ref = `scripted:${relative(process.cwd(), file)}`;
    const res = await scripted.infer(request(ref));
    expect(res.toolCalls).toEqual([{ id: 'call_0_0', name: 'grep', arguments: { pattern: 'x' } }]);
    writeFileSync(file, '[[turns]]\ntext = "changed on disk"\n');
    expect((await scripted.infer(request(ref))).text).toBe('changed on disk');
  });

  it('reports a missing script with a coded sentence', async () => {
    expect(await codeOf(() => scripted.infer(request('scripted:nowhere')))).toBe('scripted-script-missing');
    expect(await codeOf(() => scripted.infer(request(`scripted:${join(dir, 'absent.toml')}`)))).toBe(
      'scripted-script-missing',
    );
  });

  const invalid: Array<[string, string, RegExp]> = [
    ['a typo in a key', '[[turns]]\ntxt = "hi"\n', /turns\[0\]/],
    [
      'both argument forms',
      '[[turns]]\n[[turns.tool_calls]]\nname = "a"\narguments = {}\narguments_raw = "{"\n',
      /either `arguments` or `arguments_raw`/,
    ],
    ['a negative latency', 'latency_ms = -5\n', /latency_ms/],
    ['an unknown failure class', '[[turns]]\nfail = { kind = "flaky" }\n', /turns\[0\]\.fail\.kind/],
    ['broken TOML', '[[turns]\ntext = 1\n', /not valid TOML at line 1/],
  ];
  for (const [name, text, pattern] of invalid) {
    it(`rejects ${name} with scripted-script-invalid and a sentence`, () => {
      let caught: unknown;
      try {
        parseScript(text, 'bad.toml');
      } catch (err) {
        caught = err;
      }
      expect(isLevError(caught)).toBe(true);
      const err = caught as Error & { code: string; diagnostics: unknown[] };
      expect(err.code).toBe('scripted-script-invalid');
      expect(err.message).toMatch(pattern);
      expect(err.message).toMatch(/^Script bad\.toml .*\(see docs\/scripted\.md for the format\)\.$/);
      expect(err.diagnostics.length).toBeGreaterThan(0);
    });
  }

  it('accepts every script example in docs/scripted.md', () => {
    const doc = readFileSync(join(process.cwd(), 'docs/scripted.md'), 'utf8');
    const scripts = [...doc.matchAll(/```toml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((t) => !t.includes('[stages.'));
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const text of scripts) expect(parseScript(text, 'docs/scripted.md').turns.length).toBeGreaterThan(0);
  });

  it('validates registered scripts too', async () => {
    expect(await codeOf(() => registerScript('bad', { turns: [{ tool_calls: [{ name: '' }] }] }))).toBe(
      'scripted-script-invalid',
    );
  });
});

describe('scripted streaming (docs/scripted.md#streaming)', () => {
  it('hands the text to a reader in growing pieces before it answers, and answers the same reply', async () => {
    registerScript('paced', { latency_ms: 40, turns: [{ text: 'The quick brown fox jumps over the lazy dog.' }] });
    const seen: string[] = [];
    let answered = false;
    const reply = await scripted.infer(request('scripted:paced'), {
      onText: (text) => {
        expect(answered).toBe(false);
        seen.push(text);
      },
    });
    answered = true;
    unregisterScript('paced');
    expect(seen).toHaveLength(STREAM_PIECES);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.startsWith(seen[i - 1]!)).toBe(true);
    expect(seen.at(-1)).toBe(reply.text);
    expect(reply.text).toBe('The quick brown fox jumps over the lazy dog.');
  });

  it('never splits a character made of two UTF-16 units', async () => {
    registerScript('emoji', { turns: [{ text: '😀😀😀' }] });
    const seen: string[] = [];
    await scripted.infer(request('scripted:emoji'), { onText: (text) => seen.push(text) });
    unregisterScript('emoji');
    for (const text of seen) expect(/[\uD800-\uDBFF]$/.test(text)).toBe(false);
  });
});
