import { existsSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { confinePath, isWithin } from '../../src/tools/confine.js';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { compileReadPaths, NO_READ_PATHS } from '../../src/tools/read-paths.js';
import { makeSandbox, type Sandbox, SECRET } from './fixture.js';

const box: Sandbox = makeSandbox();
afterAll(() => box.cleanup());

type Attack = [tool: string, args: Record<string, unknown>];

const attacks = (): Attack[] => [
  ['read_file', { path: '..' }],
  ['read_file', { path: '../secret/secret.txt' }],
  ['read_file', { path: '../../etc/passwd' }],
  ['read_file', { path: '/etc/passwd' }],
  ['read_file', { path: path.join(box.secret, 'secret.txt') }],
  ['read_file', { path: '~' }],
  ['read_file', { path: '~/secret.txt' }],
  ['read_file', { path: 'link-out' }],
  ['read_file', { path: 'dir-out/secret.txt' }],
  ['read_file', { path: 'chain1/secret.txt' }],
  ['read_file', { path: 'sub/../../secret/secret.txt' }],
  ['read_file', { path: './sub/./../../work/../secret/secret.txt' }],
  ['read_file', { path: 'a.txt\0../../secret/secret.txt' }],
  ['read_file', { path: 'x'.repeat(300) }],
  ['read_file', { path: 'a/'.repeat(2100) }],
  ['read_file', { path: 'loop1' }],
  ['list_dir', { path: '..' }],
  ['list_dir', { path: '/' }],
  ['list_dir', { path: 'dir-out' }],
  ['list_dir', { path: '~' }],
  ['glob', { pattern: '../**' }],
  ['glob', { pattern: '/etc/*' }],
  ['glob', { pattern: '../secret/*' }],
  ['glob', { pattern: 'dir-out/*' }],
  ['glob', { pattern: '~/*' }],
  ['grep', { pattern: 'TOPSECRET', path: '..' }],
  ['grep', { pattern: 'TOPSECRET', path: '../secret' }],
  ['grep', { pattern: 'TOPSECRET', path: 'link-out' }],
  ['grep', { pattern: 'root', path: '/etc' }],
  ['write_file', { path: '../secret/new.txt', content: 'x' }],
  ['write_file', { path: path.join(box.root, 'planted.txt'), content: 'x' }],
  ['write_file', { path: 'link-out', content: 'overwritten' }],
  ['write_file', { path: 'dir-out/new.txt', content: 'x' }],
  ['write_file', { path: 'dangling', content: 'x' }],
  ['write_file', { path: 'chain1/new.txt', content: 'x' }],
  ['write_file', { path: '~/secret.txt', content: 'x' }],
  ['write_file', { path: 'sub/../../secret/secret.txt', content: 'x' }],
  ['write_file', { path: 'new\0.txt', content: 'x' }],
  ['edit_file', { path: 'link-out', old_string: 'TOPSECRET', new_string: 'gone' }],
  ['edit_file', { path: 'dir-out/secret.txt', old_string: 'TOPSECRET', new_string: 'gone' }],
  ['edit_file', { path: '../secret/secret.txt', old_string: 'TOPSECRET', new_string: 'gone' }],
];

describe('path attacks', () => {
  it('has at least 30 attacks', () => {
    expect(attacks().length).toBeGreaterThanOrEqual(30);
  });

  it.each(attacks().map((a, i) => [i, ...a] as const))(
    '#%i %s %j is refused without touching anything outside',
    async (_i, tool, args) => {
      const before = box.outsideSnapshot();
      const out = await dispatchTool(tool, args, box.ctx());
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(
        /^\[(path-outside-workdir|path-invalid|path-too-long|path-symlink-loop|bad-argument)\]/,
      );
      expect(out.content).not.toContain(SECRET);
      expect(box.outsideSnapshot()).toEqual(before);
    },
  );

  it('names the rule and how to grant read access', async () => {
    const out = await dispatchTool('read_file', { path: '../secret/secret.txt' }, box.ctx());
    expect(out.code).toBe('path-outside-workdir');
    expect(out.content).toContain('[read_paths]');
    expect(out.content).toContain(box.work);
  });

  it('says a symbolic link led outside', async () => {
    const out = await dispatchTool('read_file', { path: 'link-out' }, box.ctx());
    expect(out.content).toContain('symbolic link');
  });

  it('says writes never leave the workdir', async () => {
    const out = await dispatchTool('write_file', { path: '../x.txt', content: 'x' }, box.ctx());
    expect(out.content).toMatch(/writes never leave the workdir/);
    expect(existsSync(path.join(box.root, 'x.txt'))).toBe(false);
  });

  it('a wide glob and grep inside the workdir leave linked secrets out', async () => {
    const g = await dispatchTool('glob', { pattern: '**/*' }, box.ctx());
    expect(g.isError).toBe(false);
    expect(g.content).toContain('a.txt');
    expect(g.content).not.toContain('secret.txt');
    expect(g.content).toMatch(/left out/);
    const r = await dispatchTool('grep', { pattern: 'TOPSECRET|alpha' }, box.ctx());
    expect(r.content).toContain('a.txt:1: alpha');
    expect(r.content).not.toContain(SECRET);
  });

  it('a symlink that stays inside the workdir is followed', async () => {
    const out = await dispatchTool('read_file', { path: 'link-in' }, box.ctx());
    expect(out).toMatchObject({ isError: false, content: 'alpha\nbeta\ngamma\n' });
  });
});

describe('[read_paths] grants', () => {
  const grantedCtx = () => {
    const { policy } = compileReadPaths(
      [box.secret],
      { securityReadPaths: [box.secret] },
      box.work,
      '/nonexistent-home',
    );
    return box.ctx({ readPolicy: policy });
  };

  it('lets the granted path be read, by path, glob, grep, list_dir and through a link', async () => {
    const ctx = grantedCtx();
    expect((await dispatchTool('read_file', { path: '../secret/secret.txt' }, ctx)).content).toContain(SECRET);
    expect((await dispatchTool('read_file', { path: 'link-out' }, ctx)).content).toContain(SECRET);
    expect((await dispatchTool('list_dir', { path: '../secret' }, ctx)).content).toContain('secret.txt');
    expect((await dispatchTool('glob', { pattern: '../secret/*' }, ctx)).content).toContain('secret.txt');
    expect((await dispatchTool('grep', { pattern: 'TOPSECRET', path: '../secret' }, ctx)).content).toContain(SECRET);
  });

  it('never lets it be written or edited', async () => {
    const ctx = grantedCtx();
    const before = box.outsideSnapshot();
    const w = await dispatchTool('write_file', { path: '../secret/secret.txt', content: 'x' }, ctx);
    const e = await dispatchTool('edit_file', { path: 'link-out', old_string: 'TOPSECRET', new_string: 'x' }, ctx);
    const n = await dispatchTool('write_file', { path: 'dir-out/new.txt', content: 'x' }, ctx);
    for (const out of [w, e, n]) expect(out.code).toBe('path-outside-workdir');
    expect(box.outsideSnapshot()).toEqual(before);
  });

  it('grants nothing beyond the granted path', async () => {
    const ctx = grantedCtx();
    expect((await dispatchTool('read_file', { path: '/etc/passwd' }, ctx)).code).toBe('path-outside-workdir');
    expect((await dispatchTool('list_dir', { path: '..' }, ctx)).code).toBe('path-outside-workdir');
    expect((await dispatchTool('glob', { pattern: '../*' }, ctx)).code).toBe('path-outside-workdir');
  });

  it('a declared entry without a grant grants nothing', async () => {
    const { policy } = compileReadPaths([box.secret], {}, box.work, '/nonexistent-home');
    const out = await dispatchTool('read_file', { path: '../secret/secret.txt' }, box.ctx({ readPolicy: policy }));
    expect(out.code).toBe('path-outside-workdir');
  });
});

describe('confinement invariants', () => {
  const segments = [
    '..',
    '.',
    'a.txt',
    'sub',
    'b.txt',
    'link-out',
    'link-in',
    'dir-out',
    'chain1',
    'chain2',
    'dangling',
    'loop1',
    'secret.txt',
    'new',
    '~',
    '',
  ];

  it('whatever the spelling, an accepted path is inside the real workdir', async () => {
    const root = realpathSync(box.work);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...segments), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.constantFrom<'read' | 'write'>('read', 'write'),
        async (parts, absolute, access) => {
          const input = (absolute ? `${box.work}/` : '') + parts.join('/');
          const result = await confinePath(input, access, {
            workdir: box.work,
            readPolicy: NO_READ_PATHS,
            home: box.secret,
          });
          if (result.ok) {
            expect(isWithin(root, result.path.real)).toBe(true);
            expect(result.path.real.startsWith(realpathSync(box.secret))).toBe(false);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a workdir given through a symbolic link works, and still confines', async () => {
    const alias = path.join(box.root, 'work-alias');
    symlinkSync(box.work, alias);
    const ctx = box.ctx({ workdir: alias });
    expect((await dispatchTool('read_file', { path: 'a.txt' }, ctx)).content).toBe('alpha\nbeta\ngamma\n');
    expect((await dispatchTool('read_file', { path: '../secret/secret.txt' }, ctx)).code).toBe('path-outside-workdir');
    expect((await dispatchTool('read_file', { path: `${alias}/sub/b.txt` }, ctx)).content).toBe('inside b\n');
  });
});
