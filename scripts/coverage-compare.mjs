#!/usr/bin/env node
// Compares two V8 coverage reports of the suite (`npx vitest run --coverage`
// writes coverage/coverage-final.json): the covered lines of each file before
// and after a change to the tests, and every file that lost some, so a faster
// suite is shown to test no less (CONTRIBUTING.md#tests-that-wait). A line is
// covered when a statement starting on it ran; a file whose source is the same
// in both reports is compared line by line, one whose source changed by its
// count of covered lines. Exit status 1 when a file lost covered lines.
//
//   node scripts/coverage-compare.mjs BEFORE.json AFTER.json
import { readFileSync } from 'node:fs';

/** A file's repository path: from its first `src/`, `workflows/` or `activities/` on, so two checkouts' reports compare. */
function repoPath(file) {
  const m = /\/((?:src|workflows|activities)\/.*)$/.exec(file);
  return m ? m[1] : file;
}

/** Repository path → the file's covered lines, and its statements' places (which differ once its source changed). */
function coveredLines(path) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const out = new Map();
  for (const [file, { statementMap, s }] of Object.entries(report)) {
    const lines = new Set();
    for (const [id, loc] of Object.entries(statementMap)) if (s[id] > 0) lines.add(loc.start.line);
    out.set(repoPath(file), { lines, shape: JSON.stringify(statementMap) });
  }
  return out;
}

function main([beforePath, afterPath]) {
  if (!beforePath || !afterPath) throw new Error('usage: node scripts/coverage-compare.mjs BEFORE.json AFTER.json');
  const before = coveredLines(beforePath);
  const after = coveredLines(afterPath);
  let total = [0, 0];
  const lost = [];
  const gained = [];
  for (const [file, { lines, shape }] of before) {
    const was = after.get(file);
    const now = was?.lines ?? new Set();
    total = [total[0] + lines.size, total[1] + now.size];
    // Where the source changed in between, lines moved: only the count compares.
    const missing = was?.shape === shape ? [...lines].filter((l) => !now.has(l)) : [];
    if (missing.length > 0 || now.size < lines.size) lost.push({ file, missing, before: lines.size, after: now.size });
    else if (now.size > lines.size) gained.push({ file, before: lines.size, after: now.size });
  }
  for (const [file, { lines }] of after)
    if (!before.has(file)) {
      total = [total[0], total[1] + lines.size];
      gained.push({ file, before: 0, after: lines.size });
    }
  const out = [`covered lines: ${total[0]} before, ${total[1]} after, in ${after.size} files`];
  out.push(`files with more covered lines: ${gained.length}`);
  if (lost.length === 0) out.push('no file lost a covered line');
  else {
    out.push(`files that lost covered lines: ${lost.length}`);
    for (const l of lost)
      out.push(
        `  ${l.file}: ${l.before} → ${l.after}, lines no longer run: ${l.missing.sort((a, b) => a - b).join(', ')}`,
      );
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return lost.length === 0 ? 0 : 1;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
