/**
 * How long exact token counting takes on ordinary and pathological text
 * (1 MB each): prose, one letter repeated, random letters, spaces, dots.
 * js-tiktoken alone is quadratic on a long run of one character; Leviath's
 * counter is not. Run: npm run bench -- tokens
 */
import { countTokens } from '../src/tokens/count.js';

const SIZE = 1_000_000;

function randomLetters(n: number): string {
  let seed = 42;
  let text = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    text += String.fromCharCode(97 + (seed % 26));
  }
  return text;
}

const samples: [string, string][] = [
  ['prose', 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(SIZE / 62)],
  ['one letter', 'a'.repeat(SIZE)],
  ['random letters', randomLetters(SIZE)],
  ['spaces', ' '.repeat(SIZE)],
  ['dots', '.'.repeat(SIZE)],
  ['emoji', '😀'.repeat(SIZE / 4)],
];

/** Prints the time to count each 1 MB sample with o200k_base (the first includes loading the rank tables). */
export default function run(): void {
  countTokens('warm up', 'o200k_base');
  countTokens('w'.repeat(200), 'o200k_base');
  const rows = [['text', 'chars', 'tokens', 'ms']];
  for (const [name, text] of samples) {
    const started = performance.now();
    const tokens = countTokens(text, 'o200k_base');
    rows.push([name, String(text.length), String(tokens), (performance.now() - started).toFixed(0)]);
  }
  for (const row of rows) console.log(row.map((cell) => cell.padEnd(16)).join(''));
}
