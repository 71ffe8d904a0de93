/**
 * Shell pre-approval (docs/reference/seeds.md#command-seeds). A command is split into segments on
 * `;`, `&&`, `||`, `|`, `&` and newlines outside quotes; each segment's key
 * is its program (for git, program plus subcommand). The command is
 * pre-approved only when every segment is covered by the safe list and
 * none uses a construct that could write or run something else.
 */

export const DEFAULT_SAFE_COMMANDS: readonly string[] = Object.freeze([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'diff',
  'stat',
  'pwd',
  'echo',
  'jq',
  'git status',
  'git diff',
  'git log',
  'git show',
  'git branch',
  'git remote',
  'git rev-parse',
  'git blame',
  'git describe',
  'git ls-files',
]);

export interface Approval {
  ok: boolean;
  /** One line per segment that is not covered: its key, or the segment and why it never is. */
  uncovered: string[];
}

interface Segment {
  text: string;
  words: string[];
  never: string[];
}

type Split = { ok: true; segments: Segment[] } | { ok: false; reason: string };

function newSegment(): Segment {
  return { text: '', words: [], never: [] };
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
 * Whether `command` may run without asking: every segment's key is covered
 * by the defaults plus `extra` (`[safe_commands] shell`), and no segment has
 * a redirection, a leading `VAR=`, command substitution, a subshell,
 * `git -c` or `--output`.
 */
export function isPreApproved(command: string, extra: readonly string[]): Approval {
  const split = splitSegments(command);
  if (!split.ok) return { ok: false, uncovered: [`${command.trim()} (${split.reason})`] };
  if (split.segments.length === 0) return { ok: false, uncovered: ['(empty command)'] };
  const allowed = [...DEFAULT_SAFE_COMMANDS, ...extra];
  const uncovered: string[] = [];
  for (const segment of split.segments) {
    const { words } = segment;
    const never = [...segment.never];
    if (words[0] !== undefined && ASSIGNMENT.test(words[0])) never.push('variable assignment');
    if (gitConfigOverride(words)) never.push('git -c');
    if (words.some((w) => w.startsWith('--output'))) never.push('--output');
    if (never.length > 0) {
      uncovered.push(`${segment.text} (${never.join(', ')})`);
      continue;
    }
    if (!allowed.some((entry) => covers(entry, words))) uncovered.push(segmentKey(words));
  }
  return { ok: uncovered.length === 0, uncovered };
}
