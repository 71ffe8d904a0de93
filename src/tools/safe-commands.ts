/**
 * Shell pre-approval (docs/tools.md#safe-commands). A command is split into segments on
 * `;`, `&&`, `||`, `|`, `&` and newlines outside quotes; each segment's key
 * is its program (for git, program plus subcommand). The command is
 * pre-approved only when every segment is covered by the safe list, keeps to
 * its rule's arguments, and uses no construct that could write or run something else.
 */

/**
 * The read-only defaults, one rule per program (for git, per subcommand): `key` is the words a
 * segment starts with, and `refuse` says why the words after them would make it more than a read:
 * an option that names a file to read or write, runs another program, follows forever, or changes
 * the repository. A rule without `refuse` takes any arguments.
 */
interface SafeRule {
  key: string;
  refuse?: (args: readonly string[]) => string | undefined;
}

/** Why an option of `names` is among `args`: `--name`, `--name=value`, or `-x` alone or in a cluster (`-rx`). */
function withoutOptions(names: readonly string[], why: string): (args: readonly string[]) => string | undefined {
  return (args) => {
    for (const arg of args) {
      if (arg === '--') return undefined;
      for (const name of names) {
        const long = name.startsWith('--');
        const hit = long
          ? arg === name || arg.startsWith(`${name}=`)
          : !arg.startsWith('--') && arg.startsWith('-') && arg.slice(1).includes(name.slice(1));
        if (hit) return `${arg} ${why}`;
      }
    }
    return undefined;
  };
}

const NAMES_A_FILE = 'names a file to read';
const GIT_RUNS_PROGRAMS = withoutOptions(
  ['--ext-diff', '--no-index'],
  'runs an external diff or reads outside the repository',
);

/** `git branch` lists: its listing options only, and names only as `--list` patterns. */
function gitBranchRefusal(args: readonly string[]): string | undefined {
  const listing =
    /^(-[arvli]+|--(list|all|remotes|verbose|ignore-case|show-current|no-color|no-column|omit-empty|no-abbrev|(color|column|abbrev|sort|format|contains|no-contains|merged|no-merged|points-at)(=.*)?))$/;
  const takesValue = new Set([
    '--sort',
    '--format',
    '--contains',
    '--no-contains',
    '--merged',
    '--no-merged',
    '--points-at',
  ]);
  const lists = args.some((a) => a === '--list' || /^-[arvi]*l/.test(a));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (takesValue.has(arg)) i++;
    else if (arg.startsWith('-') && !listing.test(arg)) return `${arg} changes branches (only listing is read-only)`;
    else if (!arg.startsWith('-') && !lists) return `${arg} would create a branch (only listing is read-only)`;
  }
  return undefined;
}

/** `git remote` reads as itself, `-v` and `show`: every other subcommand changes the remotes. */
function gitRemoteRefusal(args: readonly string[]): string | undefined {
  const rest = args[0] === '-v' || args[0] === '--verbose' ? args.slice(1) : args;
  if (rest.length === 0 || rest[0] === 'show') return undefined;
  return `${rest[0]} changes the remotes (only \`git remote\`, \`-v\` and \`show\` are read-only)`;
}

const SAFE_RULES: readonly SafeRule[] = [
  { key: 'ls' },
  { key: 'cat' },
  { key: 'head' },
  { key: 'tail', refuse: withoutOptions(['-f', '-F', '--follow', '--retry'], 'follows the file and never ends') },
  { key: 'wc', refuse: withoutOptions(['--files0-from'], NAMES_A_FILE) },
  { key: 'grep', refuse: withoutOptions(['-f', '--file', '--exclude-from'], NAMES_A_FILE) },
  { key: 'diff', refuse: withoutOptions(['-X', '--exclude-from', '--from-file', '--to-file'], NAMES_A_FILE) },
  { key: 'stat' },
  { key: 'pwd' },
  { key: 'echo' },
  {
    key: 'jq',
    refuse: withoutOptions(
      ['-f', '-L', '--from-file', '--rawfile', '--slurpfile', '--argfile', '--library-path'],
      NAMES_A_FILE,
    ),
  },
  { key: 'git status' },
  { key: 'git diff', refuse: GIT_RUNS_PROGRAMS },
  { key: 'git log', refuse: GIT_RUNS_PROGRAMS },
  { key: 'git show', refuse: GIT_RUNS_PROGRAMS },
  { key: 'git branch', refuse: gitBranchRefusal },
  { key: 'git remote', refuse: gitRemoteRefusal },
  { key: 'git rev-parse' },
  { key: 'git blame', refuse: withoutOptions(['-S', '--contents', '--ignore-revs-file'], NAMES_A_FILE) },
  { key: 'git describe' },
  { key: 'git ls-files', refuse: withoutOptions(['-X', '--exclude-from'], NAMES_A_FILE) },
];

/**
 * How the defaults judge a segment: by its arguments too, or (a visit recorded before
 * `SAFE_COMMAND_ARGUMENTS`, src/runtime/patches.ts) by its program and subcommand only.
 */
export type SafeJudgement = 'arguments' | 'keys';

export interface Approval {
  ok: boolean;
  /** One line per segment that is not covered: its key, or the segment and why it never is. */
  uncovered: string[];
}

interface Segment {
  text: string;
  words: string[];
  never: string[];
  /** Ended by a single `&`: it runs in the background, past the command's end. */
  background: boolean;
}

type Split = { ok: true; segments: Segment[] } | { ok: false; reason: string };

function newSegment(): Segment {
  return { text: '', words: [], never: [], background: false };
}

function flag(segment: Segment, reason: string): void {
  if (!segment.never.includes(reason)) segment.never.push(reason);
}

/** Splits a command into segments, noting constructs that are never covered. */
export function splitSegments(command: string): Split {
  const segments: Segment[] = [];
  let seg = newSegment();
  let word: string | undefined;
  let quote: "'" | '"' | undefined;

  const endWord = () => {
    if (word !== undefined) seg.words.push(word);
    word = undefined;
  };
  const endSegment = () => {
    endWord();
    seg.text = seg.text.trim();
    if (seg.text !== '') segments.push(seg);
    seg = newSegment();
  };

  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    const next = command[i + 1];
    if (quote === "'") {
      seg.text += ch;
      if (ch === "'") quote = undefined;
      else word = (word ?? '') + ch;
      continue;
    }
    if (quote === '"') {
      seg.text += ch;
      if (ch === '"') {
        quote = undefined;
      } else if (ch === '\\' && next !== undefined) {
        seg.text += next;
        word = (word ?? '') + next;
        i++;
      } else {
        if (ch === '`' || (ch === '$' && next === '(')) flag(seg, 'command substitution');
        word = (word ?? '') + ch;
      }
      continue;
    }
    if (ch === '\\') {
      if (next === '\n') {
        i++;
        continue;
      }
      if (next !== undefined) {
        seg.text += ch + next;
        word = (word ?? '') + next;
        i++;
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      seg.text += ch;
      word = word ?? '';
      continue;
    }
    if (ch === '\n' || ch === ';') {
      endSegment();
      continue;
    }
    if (ch === '&' || ch === '|') {
      if (ch === '&' && next === '>') {
        flag(seg, 'redirection');
        seg.text += ch;
        continue;
      }
      if (next === ch || (ch === '|' && next === '&')) i++;
      else if (ch === '&') seg.background = true;
      endSegment();
      continue;
    }
    seg.text += ch;
    if (ch === ' ' || ch === '\t') {
      endWord();
      continue;
    }
    if (ch === '>' || ch === '<') flag(seg, 'redirection');
    else if (ch === '`' || (ch === '$' && next === '(')) flag(seg, 'command substitution');
    else if (ch === '(' || ch === ')') flag(seg, 'subshell');
    word = (word ?? '') + ch;
  }
  if (quote !== undefined) return { ok: false, reason: 'unbalanced quotes' };
  endSegment();
  return { ok: true, segments };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function segmentKey(words: string[]): string {
  const program = words[0] ?? '';
  if (program === 'git' && words[1] !== undefined) return `git ${words[1]}`;
  return program;
}

function gitConfigOverride(words: string[]): boolean {
  if (words[0] !== 'git') return false;
  for (const w of words.slice(1)) {
    if (!w.startsWith('-')) return false;
    if (w.startsWith('-c') || w.startsWith('--config-env')) return true;
  }
  return false;
}

function covers(entry: string, words: string[]): boolean {
  const want = entry
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  return want.length > 0 && want.every((w, i) => words[i] === w);
}

/**
 * Whether `command` may run without asking: every segment is covered by a
 * default rule whose arguments it keeps to, or by `extra` (`[safe_commands] shell`),
 * and no segment has a redirection, a leading `VAR=`, command substitution,
 * a subshell, a background `&`, `git -c` or `--output`.
 */
export function isPreApproved(
  command: string,
  extra: readonly string[],
  judgement: SafeJudgement = 'arguments',
): Approval {
  const split = splitSegments(command);
  if (!split.ok) return { ok: false, uncovered: [`${command.trim()} (${split.reason})`] };
  if (split.segments.length === 0) return { ok: false, uncovered: ['(empty command)'] };
  const uncovered: string[] = [];
  for (const segment of split.segments) {
    const { words } = segment;
    const never = [...segment.never];
    if (words[0] !== undefined && ASSIGNMENT.test(words[0])) never.push('variable assignment');
    if (gitConfigOverride(words)) never.push('git -c');
    if (words.some((w) => w.startsWith('--output'))) never.push('--output');
    if (judgement === 'arguments' && segment.background) never.push('background `&`');
    if (never.length > 0) {
      uncovered.push(`${segment.text} (${never.join(', ')})`);
      continue;
    }
    if (extra.some((entry) => covers(entry, words))) continue;
    const rule = SAFE_RULES.find((r) => covers(r.key, words));
    if (!rule) {
      uncovered.push(segmentKey(words));
      continue;
    }
    const why = judgement === 'arguments' ? rule.refuse?.(words.slice(rule.key.split(' ').length)) : undefined;
    if (why) uncovered.push(`${segment.text} (${why})`);
  }
  return { ok: uncovered.length === 0, uncovered };
}
