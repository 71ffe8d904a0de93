/** `submit_output`'s `artifacts` (docs/reference/stages.md#artifacts): confined to the workdir, all or nothing. */
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { submitOutput } from '../../src/outputs/submit.js';
import { artifactLines, checkArtifacts, MAX_ARTIFACTS } from '../../src/tools/artifacts.js';
import { loadToml } from '../blueprint/helpers.js';

const workdir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'artifacts-'));
  mkdirSync(join(dir, 'data'));
  return dir;
};

describe('artifacts', () => {
  it('keeps workdir-relative paths, normalised, once each, existing or not', () => {
    const dir = workdir();
    expect(checkArtifacts(['data/../report.md', './data/x.csv', ' data/x.csv ', '', 'later/out.pdf'], dir)).toEqual({
      ok: true,
      paths: ['report.md', 'data/x.csv', 'later/out.pdf'],
    });
    expect(checkArtifacts(undefined, dir)).toEqual({ ok: true, paths: [] });
    expect(checkArtifacts([], undefined)).toEqual({ ok: true, paths: [] });
  });

  it('refuses the whole list when one path leaves the workdir, naming each that does', () => {
    const dir = workdir();
    symlinkSync(tmpdir(), join(dir, 'out'));
    const refused = checkArtifacts(['report.md', '../secret.txt', '/etc/passwd', 'out/x'], dir);
    expect(refused.ok).toBe(false);
    const reply = refused.ok ? '' : refused.reply;
    expect(reply).toMatch(/^\[path-outside-workdir\] /);
    expect(reply).toContain('../secret.txt, /etc/passwd, out/x');
    expect(reply).not.toContain('report.md');
  });

  it('refuses a list of anything but strings, too many paths, and any path without a workdir', () => {
    expect(checkArtifacts('report.md', '/tmp')).toMatchObject({ ok: false, reply: /^\[bad-argument\]/ });
    expect(checkArtifacts([1], '/tmp')).toMatchObject({ ok: false, reply: /^\[bad-argument\]/ });
    const many = Array.from({ length: MAX_ARTIFACTS + 1 }, (_, i) => `f${i}`);
    expect(checkArtifacts(many, workdir())).toMatchObject({ ok: false, reply: /^\[bad-argument\] .*at most 100/ });
    expect(checkArtifacts(['a.txt'], undefined)).toMatchObject({ ok: false, reply: /^\[path-outside-workdir\]/ });
  });

  it('travel with an accepted answer, and a refused list refuses the answer', () => {
    const r = loadToml('[stages.a]\nmode = "output"\n');
    if (!r.blueprint) throw new Error(JSON.stringify(r.diagnostics));
    const dir = workdir();
    const ok = submitOutput(r.blueprint, 'a', { content: 'See the table.' }, checkArtifacts(['data/t.csv'], dir));
    expect(ok).toMatchObject({ ok: true, artifacts: ['data/t.csv'], reply: expect.stringContaining('1 artifact)') });
    expect(submitOutput(r.blueprint, 'a', { content: 'x' })).toMatchObject({ ok: true, artifacts: [] });
    expect(submitOutput(r.blueprint, 'a', { content: 'x' }, checkArtifacts(['../up'], dir)).ok).toBe(false);
  });

  it('are listed under a heading with their count', () => {
    expect(artifactLines(['a.csv', 'b/c.md'])).toEqual(['Files produced (2):', '  a.csv', '  b/c.md']);
    expect(artifactLines(undefined)).toEqual([]);
  });
});
