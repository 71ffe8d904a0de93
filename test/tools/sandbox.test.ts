import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { prepareCommand, type SandboxPolicy } from '../../src/tools/sandbox.js';
import { makeSandbox, SECRET } from './fixture.js';

const box = makeSandbox();
afterAll(() => box.cleanup());

const namespace: SandboxPolicy = { kind: 'namespace', env: [], readRoots: [] };

async function shell(command: string, sandbox: SandboxPolicy = namespace) {
  return dispatchTool('shell', { command, timeout_secs: 20 }, box.ctx({ sandbox }));
}

describe('commands run in the namespace sandbox', () => {
  it('cannot read the worker environment, directly or through /proc of the parent', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-never-shown');
    vi.stubEnv('DATABASE_URL', 'postgres://user:pw@db/never-shown');
    try {
      const out = await shell(
        'env; cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n"; grep -al never-shown /proc/*/environ 2>/dev/null; true',
      );
      expect(out.isError).toBe(false);
      expect(out.content).not.toContain('never-shown');
      expect(out.content).toContain('PATH=');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('sees only its own processes', async () => {
    const out = await shell('ls /proc | grep -c "^[0-9]"');
    // bwrap's init, bash and ls at most: the worker and its siblings are not there.
    expect(Number(out.content.split('\n')[0])).toBeLessThanOrEqual(4);
  });

  it('writes the workdir, but nothing outside it', async () => {
    const out = await shell(
      `echo made > made.txt; echo x > ${box.secret}/planted.txt; echo y > /tmp/private.txt; cat ${box.secret}/secret.txt; true`,
    );
    expect(out.content).not.toContain(SECRET);
    expect(box.outsideSnapshot()).not.toHaveProperty(path.join(box.secret, 'planted.txt'));
    expect(await dispatchTool('read_file', { path: 'made.txt' }, box.ctx())).toMatchObject({ content: 'made\n' });
  });

  it('reaches no network, not even the worker host', async () => {
    const server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const out = await shell(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      expect(out.isError).toBe(true);
      expect(out.content).not.toContain('hello from the host');
    } finally {
      server.close();
    }
  });

  it('reaches the network when the policy shares it (the user allowed it and the blueprint asked)', async () => {
    const server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const out = await shell(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, { ...namespace, network: true });
      expect(out.content).toContain('hello from the host');
    } finally {
      server.close();
    }
  });

  it('reads granted read paths, read-only', async () => {
    const granted = path.join(box.root, 'granted');
    mkdirSync(granted, { recursive: true });
    writeFileSync(path.join(granted, 'notes.txt'), 'granted notes\n');
    const out = await shell(`cat ${granted}/notes.txt; echo z > ${granted}/notes.txt`, {
      ...namespace,
      readRoots: [granted],
    });
    expect(out.content).toContain('granted notes');
    expect(out.content).toMatch(/Read-only file system/);
  });

  it('passes the variables the policy names and no others', async () => {
    vi.stubEnv('LEVIATH_SANDBOX_TEST', 'named');
    vi.stubEnv('LEVIATH_SANDBOX_OTHER', 'unnamed');
    try {
      const out = await shell('env', { ...namespace, env: ['LEVIATH_SANDBOX_TEST'] });
      expect(out.content).toContain('LEVIATH_SANDBOX_TEST=named');
      expect(out.content).not.toContain('unnamed');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses to run, with a coded error, when bubblewrap cannot be found', () => {
    const prepared = prepareCommand('true', box.work, namespace, { PATH: box.secret });
    expect(prepared).toMatchObject({ ok: false, code: 'sandbox-unavailable' });
    expect(prepared.ok ? '' : prepared.message).toContain('[sandbox] kind = "none"');
  });
});

describe('kind = "none"', () => {
  it('runs bash directly, with the same reduced environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-never-shown');
    try {
      const out = await shell('env; echo pid=$$', { kind: 'none', env: [], readRoots: [] });
      expect(out.content).not.toContain('never-shown');
      expect(out.content).toContain('PATH=');
      expect(prepareCommand('true', box.work, { kind: 'none', env: [], readRoots: [] })).toMatchObject({
        ok: true,
        run: { file: 'bash' },
      });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
