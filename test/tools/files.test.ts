import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchTool } from '../../src/tools/dispatch.js';
import { READ_FILE_CAP_BYTES } from '../../src/tools/read-file.js';
import { makeSandbox, type Sandbox } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

describe('read_file', () => {
  it('returns a small file whole, without a note', async () => {
    const out = await dispatchTool('read_file', { path: 'a.txt' }, box.ctx());
    expect(out).toEqual({
      content: 'alpha\nbeta\ngamma\n',
      isError: false,
      file: { key: 'a.txt', text: 'alpha\nbeta\ngamma\n' },
    });
  });

  it('caps a large file and says how to read further', async () => {
    const size = READ_FILE_CAP_BYTES + 5000;
    writeFileSync(path.join(box.work, 'big.txt'), 'x'.repeat(size));
    const out = await dispatchTool('read_file', { path: 'big.txt' }, box.ctx());
    expect(out.isError).toBe(false);
    expect(out.content.startsWith('x'.repeat(READ_FILE_CAP_BYTES))).toBe(true);
    expect(out.content).toContain(`big.txt is ${size.toLocaleString('en-US')} bytes`);
    expect(out.content).toContain(`showed bytes 0-${READ_FILE_CAP_BYTES}`);
    expect(out.content).toContain(`offset=${READ_FILE_CAP_BYTES}`);
    const rest = await dispatchTool('read_file', { path: 'big.txt', offset: READ_FILE_CAP_BYTES }, box.ctx());
    expect(rest.content).toBe('x'.repeat(5000));
  });

  it('a limit above the cap is still capped', async () => {
    writeFileSync(path.join(box.work, 'big.txt'), 'y'.repeat(READ_FILE_CAP_BYTES * 2));
    const out = await dispatchTool('read_file', { path: 'big.txt', limit: READ_FILE_CAP_BYTES * 2 }, box.ctx());
    expect(out.content.indexOf('\n\n[')).toBe(READ_FILE_CAP_BYTES);
  });

  it('never splits a multi-byte character, and the parts join back to the file', () =>
    fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 4, max: 20 }),
        async (text, limit) => {
          writeFileSync(path.join(box.work, 'u.txt'), text);
          let offset = 0;
          let joined = '';
          for (let guard = 0; guard < 200; guard++) {
            const out = await dispatchTool('read_file', { path: 'u.txt', offset, limit }, box.ctx());
            if (text === '') return out.content === '(u.txt is empty)';
            const m = /\n\n\[u\.txt is .*offset=(\d+) to read further\.\]$/s.exec(out.content);
            if (!m) return joined + out.content === text;
            joined += out.content.slice(0, m.index);
            offset = Number(m[1]);
          }
          return false;
        },
      ),
      { numRuns: 40 },
    ));

  it('reports missing files, directories and an offset past the end', async () => {
    expect((await dispatchTool('read_file', { path: 'nope.txt' }, box.ctx())).code).toBe('not-found');
    const dir = await dispatchTool('read_file', { path: 'sub' }, box.ctx());
    expect(dir.code).toBe('is-a-directory');
    expect(dir.content).toContain('list_dir');
    expect((await dispatchTool('read_file', { path: 'a.txt', offset: 999 }, box.ctx())).code).toBe('bad-argument');
  });
});

describe('bad arguments are error results naming the argument', () => {
  it.each([
    ['read_file', {}, '`path`'],
    ['read_file', { path: 7 }, '`path`'],
    ['read_file', { path: 'a.txt', offset: -1 }, '`offset`'],
    ['read_file', { path: 'a.txt', limit: 1.5 }, '`limit`'],
    ['read_file', { file_path: 'a.txt' }, '`file_path`'],
    ['edit_file', { path: 'a.txt', old_string: '', new_string: 'x' }, '`old_string`'],
    ['shell', { command: 'ls', timeout_secs: 'soon' }, '`timeout_secs`'],
    ['grep', { pattern: '(' }, '`pattern`'],
    ['write_file', 'not json', 'JSON object'],
  ])('%s %j', async (tool, args, named) => {
    const out = await dispatchTool(tool, args, box.ctx());
    expect(out.isError).toBe(true);
    expect(out.content.startsWith('[bad-argument]')).toBe(true);
    expect(out.content).toContain(named);
  });

  it('accepts arguments given as a JSON string', async () => {
    const out = await dispatchTool('read_file', '{"path":"a.txt"}', box.ctx());
    expect(out.content).toBe('alpha\nbeta\ngamma\n');
  });

  it('an unknown tool is an error result', async () => {
    const out = await dispatchTool('delete_everything', {}, box.ctx());
    expect(out.code).toBe('unknown-tool');
  });
});

describe('write_file', () => {
  it('creates parents, reports the path, and is a no-op for identical content', async () => {
    const first = await dispatchTool('write_file', { path: 'new/dir/f.txt', content: 'hello' }, box.ctx());
    expect(first).toMatchObject({ isError: false, modifiedPaths: ['new/dir/f.txt'] });
    expect(first.content).toContain('created new/dir/f.txt');
    const mtime = statSync(path.join(box.work, 'new/dir/f.txt')).mtimeMs;
    const again = await dispatchTool('write_file', { path: 'new/dir/f.txt', content: 'hello' }, box.ctx());
    expect(again.content).toMatch(/already holds exactly this content.*nothing was written/);
    expect(again.modifiedPaths).toBeUndefined();
    expect(statSync(path.join(box.work, 'new/dir/f.txt')).mtimeMs).toBe(mtime);
  });

  it('a retry says so, and an unchanged retry still reports the path as modified', async () => {
    await dispatchTool('write_file', { path: 'f.txt', content: 'v1' }, box.ctx());
    const retry = await dispatchTool('write_file', { path: 'f.txt', content: 'v1' }, box.ctx({ attempt: 2 }));
    expect(retry.content).toContain('note: this call is a retry (attempt 2); an earlier attempt may already have run');
    expect(retry).toMatchObject({ attemptNote: true, modifiedPaths: ['f.txt'] });
    const changed = await dispatchTool('write_file', { path: 'f.txt', content: 'v2' }, box.ctx({ attempt: 3 }));
    expect(changed.content).toMatch(/^replaced f\.txt/);
    expect(changed.content).toContain('attempt 3');
  });

  it('writes through a symlink that stays inside, keeping the link', async () => {
    await dispatchTool('write_file', { path: 'link-in', content: 'via link' }, box.ctx());
    expect(readFileSync(path.join(box.work, 'a.txt'), 'utf8')).toBe('via link');
  });

  it('refuses to overwrite a directory', async () => {
    expect((await dispatchTool('write_file', { path: 'sub', content: 'x' }, box.ctx())).code).toBe('is-a-directory');
  });
});

describe('edit_file', () => {
  const file = () => readFileSync(path.join(box.work, 'a.txt'), 'utf8');

  it('replaces a unique match', async () => {
    const out = await dispatchTool('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, box.ctx());
    expect(out).toMatchObject({ isError: false, modifiedPaths: ['a.txt'] });
    expect(out.content).toContain('line 2');
    expect(file()).toBe('alpha\nBETA\ngamma\n');
  });

  it('reports an absent match clearly and changes nothing', async () => {
    const out = await dispatchTool('edit_file', { path: 'a.txt', old_string: 'delta', new_string: 'x' }, box.ctx());
    expect(out.code).toBe('edit-no-match');
    expect(out.content).toContain('was not found in a.txt');
    expect(file()).toBe('alpha\nbeta\ngamma\n');
  });

  it('hints at whitespace when only whitespace differs', async () => {
    const out = await dispatchTool(
      'edit_file',
      { path: 'a.txt', old_string: 'alpha  beta', new_string: 'x' },
      box.ctx(),
    );
    expect(out.content).toMatch(/whitespace/);
  });

  it('refuses an ambiguous match with the count, unless replace_all', async () => {
    writeFileSync(path.join(box.work, 'r.txt'), 'a-b a-b a-b');
    const out = await dispatchTool('edit_file', { path: 'r.txt', old_string: 'a-b', new_string: 'c' }, box.ctx());
    expect(out.code).toBe('edit-ambiguous');
    expect(out.content).toContain('appears 3 times');
    expect(out.content).toContain('replace_all');
    const all = await dispatchTool(
      'edit_file',
      { path: 'r.txt', old_string: 'a-b', new_string: '$&', replace_all: true },
      box.ctx(),
    );
    expect(all.content).toContain('3 occurrences');
    expect(readFileSync(path.join(box.work, 'r.txt'), 'utf8')).toBe('$& $& $&');
  });

  it('a retried edit that already happened reports it was applied', async () => {
    await dispatchTool('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, box.ctx());
    const retry = await dispatchTool(
      'edit_file',
      { path: 'a.txt', old_string: 'beta', new_string: 'BETA' },
      box.ctx({ attempt: 2 }),
    );
    expect(retry.isError).toBe(false);
    expect(retry.content).toContain('already applied');
    expect(retry.content).toContain('attempt 2');
    expect(file()).toBe('alpha\nBETA\ngamma\n');
  });

  it('the same situation on a first attempt is an error that mentions it', async () => {
    await dispatchTool('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, box.ctx());
    const out = await dispatchTool('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, box.ctx());
    expect(out.code).toBe('edit-no-match');
    expect(out.content).toContain('already in the file');
  });

  it('a missing file points to write_file', async () => {
    const out = await dispatchTool('edit_file', { path: 'none.txt', old_string: 'a', new_string: 'b' }, box.ctx());
    expect(out.code).toBe('not-found');
    expect(out.content).toContain('write_file');
  });
});

describe('list_dir, glob, grep', () => {
  it('list_dir marks directories and links and gives sizes', async () => {
    const out = await dispatchTool('list_dir', {}, box.ctx());
    expect(out.content).toContain('a.txt  (17 bytes)');
    expect(out.content).toContain('sub/');
    expect(out.content).toContain('link-out@');
    expect((await dispatchTool('list_dir', { path: 'a.txt' }, box.ctx())).code).toBe('not-a-directory');
  });

  it('glob lists matches in byte order and skips hidden files unless named', async () => {
    writeFileSync(path.join(box.work, 'B.txt'), '');
    writeFileSync(path.join(box.work, '.hidden.txt'), '');
    const out = await dispatchTool('glob', { pattern: '*.txt' }, box.ctx());
    expect(out.content.split('\n')).toEqual(['B.txt', 'a.txt']);
    expect((await dispatchTool('glob', { pattern: '.*.txt' }, box.ctx())).content).toBe('.hidden.txt');
    expect((await dispatchTool('glob', { pattern: '**/*.txt' }, box.ctx())).content.split('\n')).toEqual([
      'B.txt',
      'a.txt',
      'sub/b.txt',
    ]);
    expect((await dispatchTool('glob', { pattern: '*.md' }, box.ctx())).content).toBe('no files match `*.md`');
  });

  it('grep finds lines with numbers, literal or regex, filtered by glob', async () => {
    writeFileSync(path.join(box.work, 'c.md'), 'a+b\nbeta\n');
    const regex = await dispatchTool('grep', { pattern: '^b' }, box.ctx());
    expect(regex.content.split('\n')).toEqual(['a.txt:2: beta', 'c.md:2: beta']);
    const literal = await dispatchTool('grep', { pattern: 'a+b', literal: true }, box.ctx());
    expect(literal.content).toBe('c.md:1: a+b');
    const filtered = await dispatchTool('grep', { pattern: 'beta', glob: '*.md' }, box.ctx());
    expect(filtered.content).toBe('c.md:2: beta');
    const caseless = await dispatchTool('grep', { pattern: 'INSIDE', ignore_case: true, path: 'sub' }, box.ctx());
    expect(caseless.content).toBe('sub/b.txt:1: inside b');
    expect((await dispatchTool('grep', { pattern: 'zzz' }, box.ctx())).content).toMatch(/^no matches/);
  });

  it('grep caps its output', async () => {
    writeFileSync(path.join(box.work, 'many.txt'), 'hit\n'.repeat(500));
    const out = await dispatchTool('grep', { pattern: 'hit', max_matches: 10 }, box.ctx());
    expect(out.content.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(10);
    expect(out.content).toContain('stopped after 10 matching lines');
  });
});

it('current_time returns an ISO timestamp', async () => {
  const out = await dispatchTool('current_time', {}, box.ctx());
  expect(out.content).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
});
