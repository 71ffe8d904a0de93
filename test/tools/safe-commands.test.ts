import { describe, expect, it } from 'vitest';
import { isPreApproved } from '../../src/tools/safe-commands.js';

/** The read-only defaults judged by their arguments (docs/tools.md#safe-commands). */
describe('safe command rules', () => {
  it.each([
    'git branch',
    'git branch -a',
    'git branch -vv',
    'git branch --list "feat/*"',
    'git branch -l feat',
    'git branch --show-current',
    'git branch --contains HEAD~2 --sort=-committerdate',
    'git remote',
    'git remote -v',
    'git remote show origin',
    'git remote -v show',
    'tail -n 20 log.txt',
    'tail -5 log.txt',
    'jq -r .name package.json',
    'grep -rn foo src',
    'wc -l a b',
    'diff -u a b',
    'git diff HEAD~1 -- src',
    'git blame -L 1,5 a.ts',
    'git ls-files -m',
  ])('still covers %j', (command) => {
    expect(isPreApproved(command, [])).toEqual({ ok: true, uncovered: [] });
  });

  it.each([
    ['git branch -D main', '-D changes branches'],
    ['git branch --delete main', '--delete changes branches'],
    ['git branch -m old new', '-m changes branches'],
    ['git branch --set-upstream-to=origin/x', '--set-upstream-to=origin/x changes branches'],
    ['git branch evil', 'evil would create a branch'],
    ['git remote add evil http://x', 'add changes the remotes'],
    ['git remote set-url origin http://x', 'set-url changes the remotes'],
    ['git remote remove origin', 'remove changes the remotes'],
    ['tail -f log', '-f follows the file'],
    ['tail --follow=name log', 'follows the file'],
    ['tail -Fn 5 log', 'follows the file'],
    ['jq --rawfile a /etc/passwd -n $a', '--rawfile names a file to read'],
    ['jq --slurpfile a x.json .', '--slurpfile names a file to read'],
    ['jq -f prog.jq data.json', '-f names a file to read'],
    ['jq -L /tmp/mods .', '-L names a file to read'],
    ['grep -f /etc/shadow x', '-f names a file to read'],
    ['grep --file=/etc/shadow x', 'names a file to read'],
    ['wc --files0-from=list', 'names a file to read'],
    ['diff --from-file=/etc/passwd a', 'names a file to read'],
    ['git diff --ext-diff', '--ext-diff runs an external diff'],
    ['git diff --no-index /etc/passwd a', '--no-index'],
    ['git blame --contents /etc/passwd a.ts', '--contents names a file to read'],
    ['git ls-files --exclude-from=/etc/passwd', 'names a file to read'],
  ])('does not cover %j', (command, why) => {
    const result = isPreApproved(command, []);
    expect(result.ok).toBe(false);
    expect(result.uncovered.join(' ')).toContain(why);
  });

  it('never covers a background `&`, even of a covered program', () => {
    const result = isPreApproved('tail -n 1 log &', ['tail']);
    expect(result).toEqual({ ok: false, uncovered: ['tail -n 1 log (background `&`)'] });
    expect(isPreApproved('ls & cat a', []).uncovered).toEqual(['ls (background `&`)']);
    expect(isPreApproved('ls && cat a', []).ok).toBe(true);
    expect(isPreApproved('ls |& cat', []).ok).toBe(true);
  });

  it('an entry of `[safe_commands] shell` covers its words whatever the default rule says', () => {
    expect(isPreApproved('git branch -D old', ['git branch']).ok).toBe(true);
    expect(isPreApproved('git branch -D old', ['git remote']).ok).toBe(false);
  });

  it('a visit recorded before the rules judges keys only', () => {
    expect(isPreApproved('git branch -D main', [], 'keys').ok).toBe(true);
    expect(isPreApproved('tail -f log &', [], 'keys').ok).toBe(true);
    expect(isPreApproved('rm -rf x', [], 'keys').ok).toBe(false);
  });
});
