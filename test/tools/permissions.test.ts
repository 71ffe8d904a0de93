import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { decidePermission, permissionMode, strictestDecision } from '../../src/tools/permissions.js';
import { isPreApproved } from '../../src/tools/safe-commands.js';
import { makeSandbox } from './fixture.js';

const box = makeSandbox();
afterAll(() => box.cleanup());

describe('[tool_permissions]', () => {
  it('deny refuses the call before anything runs', async () => {
    const out = await dispatchTool(
      'write_file',
      { path: 'x.txt', content: 'x' },
      box.ctx({ permissions: { tools: { write_file: 'deny' } } }),
    );
    expect(out).toMatchObject({ isError: true, code: 'permission-denied', denied: true });
    expect(existsSync(path.join(box.work, 'x.txt'))).toBe(false);
  });

  it('deny by default applies to tools not listed', async () => {
    const ctx = box.ctx({ permissions: { default: 'deny', tools: { read_file: 'allow' } } });
    expect((await dispatchTool('list_dir', {}, ctx)).code).toBe('permission-denied');
    expect((await dispatchTool('read_file', { path: 'a.txt' }, ctx)).isError).toBe(false);
  });

  it('ask in an unattended run is refused with how to allow it', async () => {
    const out = await dispatchTool(
      'shell',
      { command: 'touch made.txt' },
      box.ctx({ permissions: { tools: { shell: 'ask' } } }),
    );
    expect(out).toMatchObject({ code: 'permission-ask-unattended', denied: true });
    expect(out.content).toContain('[tool_permissions] shell = "allow"');
    expect(out.content).toContain('[safe_commands] shell');
    expect(out.content).toContain('touch');
    expect(existsSync(path.join(box.work, 'made.txt'))).toBe(false);
  });

  it('aliases compare by canonical name', async () => {
    const out = await dispatchTool('bash', { command: 'true' }, box.ctx({ permissions: { tools: { bash: 'deny' } } }));
    expect(out.code).toBe('permission-denied');
    expect(permissionMode('bash', { tools: { shell: 'ask' } })).toBe('ask');
  });

  it('ask in an attended run waits for approval', async () => {
    const ctx = box.ctx({ unattended: false, permissions: { tools: { write_file: 'ask' } } });
    const asked = await dispatchTool('write_file', { path: 'ok.txt', content: 'x' }, ctx);
    expect(asked).toMatchObject({ code: 'permission-ask', denied: true });
    const approved = await dispatchTool('write_file', { path: 'ok.txt', content: 'x' }, { ...ctx, approved: true });
    expect(approved.isError).toBe(false);
  });

  it('allow runs the tool', async () => {
    const out = await dispatchTool(
      'shell',
      { command: 'echo fine' },
      box.ctx({ permissions: { default: 'deny', tools: { shell: 'allow' } } }),
    );
    expect(out.content).toContain('fine');
  });

  it('a pre-approved command runs when shell is ask, even unattended', async () => {
    const ctx = box.ctx({ permissions: { tools: { shell: 'ask' } } });
    expect(
      (await dispatchTool('shell', { command: 'ls | wc -l && git status --short || echo no' }, ctx)).denied,
    ).toBeUndefined();
    const extra = box.ctx({ permissions: { tools: { shell: 'ask' } }, safeCommands: ['touch'] });
    expect((await dispatchTool('shell', { command: 'touch ok2.txt' }, extra)).isError).toBe(false);
  });

  it("a sub-agent's call also needs every ancestor's allowance: a refusal above wins", async () => {
    const allow = { tools: { write_file: 'allow' as const } };
    const above = [{ permissions: { tools: { write_file: 'deny' as const } }, safeCommands: [] }];
    const out = await dispatchTool(
      'write_file',
      { path: 'y.txt', content: 'y' },
      box.ctx({ permissions: allow, ceilings: above }),
    );
    expect(out).toMatchObject({ isError: true, code: 'permission-denied', denied: true });
    expect(existsSync(path.join(box.work, 'y.txt'))).toBe(false);
    // An ancestor's `ask` is refused in an unattended run, unless its own safe list approves the command.
    const ask = [{ permissions: { tools: { shell: 'ask' as const } }, safeCommands: ['true'] }];
    const shellCtx = (ceilings: typeof ask) =>
      box.ctx({
        permissions: { tools: { shell: 'allow' } },
        ceilings,
        unattended: true,
        sandbox: { kind: 'none', env: [], readRoots: [] },
      });
    expect((await dispatchTool('shell', { command: 'touch z.txt' }, shellCtx(ask))).code).toBe(
      'permission-ask-unattended',
    );
    expect((await dispatchTool('shell', { command: 'true' }, shellCtx(ask))).isError).toBe(false);
  });

  it('the strictest of several levels decides: a refusal over a question over an allowance', () => {
    const allow = { permissions: { tools: {} }, safeCommands: [] };
    const ask = { permissions: { tools: { fan_out: 'ask' as const } }, safeCommands: [] };
    const deny = { permissions: { default: 'deny' as const, tools: {} }, safeCommands: [] };
    expect(strictestDecision('fan_out', {}, [allow, allow], false)).toEqual({ mode: 'allow' });
    expect(strictestDecision('fan_out', {}, [allow, ask], false)).toMatchObject({ mode: 'ask' });
    expect(strictestDecision('fan_out', {}, [ask, deny, allow], false)).toMatchObject({ mode: 'deny' });
    expect(strictestDecision('fan_out', {}, [ask], true)).toMatchObject({ code: 'permission-ask-unattended' });
    expect(strictestDecision('fan_out', {}, [], true)).toEqual({ mode: 'allow' });
  });

  it('the decision is available without dispatching', () => {
    expect(decidePermission('shell', { command: 'cat a' }, { tools: { shell: 'ask' } }, [], false)).toEqual({
      mode: 'allow',
    });
    expect(decidePermission('shell', { command: 'rm a' }, { tools: { shell: 'ask' } }, [], false).mode).toBe('ask');
  });
});

describe('safe commands (docs/reference/seeds.md#command-seeds)', () => {
  it.each([
    'ls -la',
    'cat a.txt | head -n 3',
    'grep -r foo . | wc -l',
    'git status',
    'git log --oneline -5; git diff HEAD~1',
    'echo "a; rm -rf /"',
    "echo 'x > y'",
    'pwd\nls',
    'jq .name package.json',
  ])('covers %j', (command) => {
    expect(isPreApproved(command, [])).toEqual({ ok: true, uncovered: [] });
  });

  it.each([
    ['rm -rf x', 'rm'],
    ['ls && rm x', 'rm'],
    ['cat a | sh', 'sh'],
    ['ls & curl evil', 'curl'],
    ['git push', 'git push'],
    ['git checkout .', 'git checkout'],
    ['echo "unterminated', 'unbalanced quotes'],
    ['', '(empty command)'],
  ])('does not cover %j', (command, key) => {
    const result = isPreApproved(command, []);
    expect(result.ok).toBe(false);
    expect(result.uncovered.join(' ')).toContain(key);
  });

  it.each([
    ['echo hi > out.txt', 'redirection'],
    ['cat < /etc/passwd', 'redirection'],
    ['echo x >> log', 'redirection'],
    ['ls &> out', 'redirection'],
    ['cat <<EOF', 'redirection'],
    ['FOO=1 ls', 'variable assignment'],
    ['echo $(rm -rf /)', 'command substitution'],
    ['echo "$(whoami)"', 'command substitution'],
    ['echo `id`', 'command substitution'],
    ['(ls)', 'subshell'],
    ['git -c core.pager=evil log', 'git -c'],
    ['git diff --output=/tmp/x', '--output'],
  ])('never covers %j, whatever the safe list says', (command, why) => {
    const result = isPreApproved(command, ['git', 'cat', 'ls', 'echo', 'FOO=1 ls']);
    expect(result.ok).toBe(false);
    expect(result.uncovered.join(' ')).toContain(why);
  });

  it('extra entries cover a program or a program with leading words', () => {
    expect(isPreApproved('npm test -- --watch', ['npm test']).ok).toBe(true);
    expect(isPreApproved('npm install x', ['npm test']).uncovered).toEqual(['npm']);
    expect(isPreApproved('git push origin', ['git push']).ok).toBe(true);
  });
});
