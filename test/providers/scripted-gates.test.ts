import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import {
  gateReached,
  getProvider,
  openGate,
  registerScript,
  resetGates,
  unregisterScript,
} from '../../src/providers/index.js';
import type { InferenceRequest } from '../../src/providers/provider.js';

function request(turn: number): InferenceRequest {
  return {
    model: 'scripted:gated',
    system: [],
    messages: [{ role: 'user', content: 'Go.' }],
    tools: [],
    maxTokens: 100,
    meta: { runId: 'run-g', stage: 'main', turn, purpose: 'turn', attempt: 1 },
  };
}

/** Whether the promise has settled by the time everything already queued has run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

afterEach(() => {
  resetGates();
  unregisterScript('gated');
});

describe('scripted gates (docs/scripted.md#gates)', () => {
  it('hold a turn until the test opens its gate, then stay open for every later call', async () => {
    registerScript('gated', {
      turns: [
        { text: 'first', gate: 'g1' },
        { text: 'second', gate: 'g1' },
      ],
    });
    const scripted = getProvider('scripted:gated', {});
    const first = scripted.infer(request(0));
    await gateReached('g1');
    expect(await settled(first)).toBe(false);
    openGate('g1');
    expect((await first).text).toBe('first');
    // A latch: the same gate lets the next call through at once.
    expect((await scripted.infer(request(1))).text).toBe('second');
  });

  it('hold a streaming reply halfway at its text gate, with half its text out', async () => {
    registerScript('gated', { turns: [{ text: 'abcdefgh', text_gate: 'g4' }] });
    const shown: string[] = [];
    const call = getProvider('scripted:gated', {}).infer(request(0), { onText: (t) => shown.push(t) });
    await gateReached('g4');
    expect(await settled(call)).toBe(false);
    expect(shown).toEqual(['a', 'ab', 'abc', 'abcd']);
    openGate('g4');
    expect((await call).text).toBe('abcdefgh');
    expect(shown.at(-1)).toBe('abcdefgh');
  });

  it('let a cancelled call go while it waits', async () => {
    registerScript('gated', { turns: [{ text: 'never', gate: 'g2' }] });
    const ctrl = new AbortController();
    const call = getProvider('scripted:gated', {}).infer(request(0), { signal: ctrl.signal });
    await gateReached('g2');
    ctrl.abort(new Error('cancelled'));
    await expect(call).rejects.toThrow('cancelled');
  });

  it('are files in LEVIATH_SCRIPTED_GATES for worker processes of their own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-gates-'));
    registerScript('gated', { turns: [{ text: 'across processes', gate: 'g3' }] });
    const call = getProvider('scripted:gated', { LEVIATH_SCRIPTED_GATES: dir }).infer(request(0));
    await gateReached('g3', { dir });
    expect(existsSync(join(dir, 'g3.reached'))).toBe(true);
    expect(await settled(call)).toBe(false);
    // What openGate(name, dir) does from another process.
    writeFileSync(join(dir, 'g3.open'), '');
    expect((await call).text).toBe('across processes');
  });

  it('refuse a gate whose name is no file name, as an invalid script', () => {
    let err: unknown;
    try {
      registerScript('gated', { turns: [{ text: 'x', gate: '../escape' }] });
    } catch (e) {
      err = e;
    }
    expect(isLevError(err) && err.code).toBe('scripted-script-invalid');
    expect(() => openGate('../escape')).toThrow(/letters, digits/);
  });
});
