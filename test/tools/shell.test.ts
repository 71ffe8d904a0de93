import { afterAll, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { SHELL_OUTPUT_CAP_BYTES } from '../../src/tools/run-shell.js';
import { makeSandbox } from './fixture.js';

const box = makeSandbox();
afterAll(() => box.cleanup());

describe('shell', () => {
  it('runs in the workdir and reports the exit code', async () => {
    const out = await dispatchTool('shell', { command: 'pwd; cat a.txt | wc -l' }, box.ctx());
    expect(out.isError).toBe(false);
    expect(out.content).toContain(box.work);
    expect(out.content).toMatch(/3\n\[exit code 0\]$/);
  });

  it('interleaves stderr with stdout', async () => {
    const out = await dispatchTool('bash', { command: 'echo out; echo err >&2' }, box.ctx());
    expect(out.content).toContain('out\nerr\n');
  });

  it('a non-zero exit is an error result with the code and output', async () => {
    const out = await dispatchTool('shell', { command: 'echo partial; exit 7' }, box.ctx());
    expect(out).toMatchObject({ isError: true, code: 'shell-exit' });
    expect(out.content).toContain('exited with code 7');
    expect(out.content).toContain('partial');
  });

  it('stops a command at its timeout and keeps the output so far', async () => {
    // Not stopped, the 20 s sleep would outlast the test's own timeout.
    const out = await dispatchTool('shell', { command: 'echo early; sleep 20; echo late', timeout_secs: 1 }, box.ctx());
    expect(out.code).toBe('shell-timeout');
    expect(out.content).toContain('stopped after 1 s');
    expect(out.content).toContain('early');
    expect(out.content).not.toContain('late');
  });

  it('uses the context default timeout when the call gives none', async () => {
    const out = await dispatchTool('shell', { command: 'sleep 20' }, box.ctx({ shellTimeoutSecs: 1 }));
    expect(out.code).toBe('shell-timeout');
  });

  it('does not wait for background processes that keep the pipes open', async () => {
    // Waiting for the background sleep would outlast the test's own timeout.
    const out = await dispatchTool('shell', { command: 'sleep 60 & echo done' }, box.ctx());
    expect(out.content).toContain('done');
  });

  it('caps combined output with a marker', async () => {
    const out = await dispatchTool('shell', { command: 'head -c 1000000 /dev/zero | tr "\\0" a' }, box.ctx());
    expect(out.isError).toBe(false);
    expect(out.content.startsWith('a'.repeat(SHELL_OUTPUT_CAP_BYTES))).toBe(true);
    expect(out.content).toContain(
      `showed the first ${SHELL_OUTPUT_CAP_BYTES.toLocaleString('en-US')} bytes, dropped ${(1_000_000 - SHELL_OUTPUT_CAP_BYTES).toLocaleString('en-US')} more`,
    );
  });

  it('stops when the call is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const out = await dispatchTool('shell', { command: 'sleep 20' }, box.ctx({ signal: controller.signal }));
    expect(out.code).toBe('shell-cancelled');
  });

  it('a retry says an earlier attempt may already have run', async () => {
    const out = await dispatchTool('shell', { command: 'true' }, box.ctx({ attempt: 2 }));
    expect(out.attemptNote).toBe(true);
    expect(out.content).toContain('this call is a retry (attempt 2); an earlier attempt may already have run');
  });
});
