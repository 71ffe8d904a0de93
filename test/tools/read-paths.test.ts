import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileReadPaths } from '../../src/tools/read-paths.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'lev-rp-'));
const work = path.join(root, 'work');
const home = path.join(root, 'home');
mkdirSync(work);
mkdirSync(path.join(home, 'notes'), { recursive: true });
mkdirSync(path.join(root, 'data', 'a'), { recursive: true });
symlinkSync(path.join(root, 'data'), path.join(root, 'data-link'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const codes = (d: { code: string }[]) => d.map((x) => x.code);

describe('compileReadPaths', () => {
  it('an exact entry grants its whole subtree, and only once granted', () => {
    const data = path.join(root, 'data');
    const granted = compileReadPaths([data], { securityReadPaths: [data] }, work, home);
    expect(granted.policy.allows(path.join(data, 'a', 'x.txt'))).toBe(true);
    expect(granted.policy.allows(data)).toBe(true);
    expect(granted.policy.allows(`${data}2/x`)).toBe(false);
    expect(granted.policy.allows(`${data}/../etc/passwd`)).toBe(false);
    expect(granted.diagnostics).toEqual([expect.objectContaining({ code: 'read-paths-declared', severity: 'note' })]);
    expect(granted.diagnostics[0]?.message).toContain('1 entry; 1 granted');

    const ungranted = compileReadPaths([data], {}, work, home);
    expect(ungranted.policy.allows(path.join(data, 'a'))).toBe(false);
    expect(codes(ungranted.diagnostics)).toEqual(['read-paths-declared', 'read-paths-not-granted']);
    expect(ungranted.diagnostics[1]?.message).toContain('[agent_read_paths.<agent>] allow');
  });

  it('names the granted plain-path entries, canonical, as the roots a sandboxed command may read', () => {
    const linked = path.join(root, 'data-link', 'a');
    const { policy } = compileReadPaths(
      [linked, `glob:${root}/data/**/*.csv`, path.join(home, 'notes')],
      { allowBlueprintReadPaths: true },
      work,
      home,
    );
    expect(policy.roots).toEqual([path.join(root, 'data', 'a'), path.join(home, 'notes')]);
    expect(compileReadPaths([linked], {}, work, home).policy.roots).toEqual([]);
  });

  it('a grant applies only to declared entries', () => {
    const data = path.join(root, 'data');
    const { policy } = compileReadPaths([path.join(data, 'a')], { agentAllow: [data] }, work, home);
    expect(policy.allows(path.join(data, 'a', 'f'))).toBe(true);
    expect(policy.allows(path.join(data, 'b'))).toBe(false);
    const none = compileReadPaths([], { agentAllow: [data] }, work, home);
    expect(none.policy.allows(path.join(data, 'a'))).toBe(false);
  });

  it('allow_blueprint_read_paths activates every declared entry', () => {
    const { policy, diagnostics } = compileReadPaths(['~/notes'], { allowBlueprintReadPaths: true }, work, home);
    expect(policy.allows(path.join(home, 'notes', 'n.md'))).toBe(true);
    expect(policy.allows(path.join(home, 'other'))).toBe(false);
    expect(codes(diagnostics)).toEqual(['read-paths-declared']);
  });

  it('glob entries: * within a component, ** across', () => {
    const { policy } = compileReadPaths(
      [`glob:${root}/data/*/*.md`, `glob:~/notes/**/*.txt`],
      { allowBlueprintReadPaths: true },
      work,
      home,
    );
    expect(policy.allows(`${root}/data/a/x.md`)).toBe(true);
    expect(policy.allows(`${root}/data/a/b/x.md`)).toBe(false);
    expect(policy.allows(`${home}/notes/x.txt`)).toBe(true);
    expect(policy.allows(`${home}/notes/deep/er/x.txt`)).toBe(true);
    expect(policy.allows(`${home}/notes/x.md`)).toBe(false);
  });

  it('regex entries are anchored at both ends; a relative regex is refused', () => {
    const { policy, diagnostics } = compileReadPaths(
      [`regex:${root}/data/[a-z]+\\.log`, 'regex:data/.*'],
      { allowBlueprintReadPaths: true },
      work,
      home,
    );
    expect(policy.allows(`${root}/data/app.log`)).toBe(true);
    expect(policy.allows(`${root}/data/app.log.bak`)).toBe(false);
    expect(policy.allows(`/x${root}/data/app.log`)).toBe(false);
    expect(diagnostics.find((d) => d.path === 'read_paths.allow[1]')?.message).toContain(
      'relative regexes are refused',
    );
  });

  it('relative entries resolve against the workdir, and symlinked entries match their real path', () => {
    const { policy } = compileReadPaths(['../data-link'], { allowBlueprintReadPaths: true }, work, home);
    expect(policy.allows(path.join(root, 'data', 'a'))).toBe(true);
  });

  it('warns about broad entries and grants, and about grants that do not compile', () => {
    const { diagnostics } = compileReadPaths(
      ['~', '/', 'glob:/**', 'glob:**/x', 'regex:/.*'],
      { securityReadPaths: ['regex:(', '/'] },
      work,
      home,
    );
    expect(codes(diagnostics).filter((c) => c === 'broad-read-path')).toHaveLength(6);
    expect(codes(diagnostics)).toContain('read-paths-grant-invalid');
  });
});
