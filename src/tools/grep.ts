import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confinePath } from './confine.js';
import { globToRegExp } from './glob-pattern.js';
import { confineForTool, defineTool, failure, success } from './tool.js';
import { SKIPPED_DIRS, walk } from './walk.js';

const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_LINE_CHARS = 400;
const MAX_OUTPUT_BYTES = 64 * 1024;
const MAX_WALK_ENTRIES = 200_000;

const schema = z
  .object({
    pattern: z
      .string()
      .min(1)
      .describe('Regular expression (JavaScript syntax) to search for, or plain text with literal: true.'),
    path: z
      .string()
      .min(1)
      .optional()
      .describe('File or directory to search, relative to the working directory (default ".").'),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe('Only search files matching this glob; without a "/" it matches file names (e.g. "*.ts").'),
    literal: z.boolean().optional().describe('Treat pattern as plain text (default false).'),
    ignore_case: z.boolean().optional().describe('Match case-insensitively (default false).'),
    max_matches: z
      .number()
      .int()
      .min(1)
      .max(2000)
      .optional()
      .describe('Stop after this many matching lines (default 200).'),
  })
  .strict();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents inside the working directory. Prints "path:line: text" for each matching line; binary files, symbolic links, .git and node_modules are skipped in directory searches.',
  schema,
  async run(args, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(args.literal ? escapeRegExp(args.pattern) : args.pattern, args.ignore_case ? 'i' : '');
    } catch (err) {
      return failure(
        'bad-argument',
        `\`pattern\` is not a valid regular expression (${(err as Error).message}); fix it or pass literal: true to search for the text as written.`,
      );
    }
    const confined = await confineForTool(args.path ?? '.', 'read', ctx);
    if (!confined.ok) return confined.outcome;
    const start = confined.path;
    let isDir: boolean;
    try {
      isDir = (await stat(start.real)).isDirectory();
    } catch {
      return failure('not-found', `${start.display} does not exist; use list_dir or glob to find what to search.`);
    }

    const filter = args.glob === undefined ? undefined : globToRegExp(args.glob);
    const filterByName = args.glob !== undefined && !args.glob.includes('/');
    const files: { real: string; display: string }[] = [];
    let stopped = false;
    if (isDir) {
      const walked = await walk(start.real, {
        maxEntries: MAX_WALK_ENTRIES,
        enterDir: (_rel, name) => !SKIPPED_DIRS.includes(name),
      });
      stopped = walked.stopped;
      for (const entry of walked.entries) {
        // Links are not followed in a tree search (they would repeat files); name one to search it.
        if (!entry.dirent.isFile()) continue;
        if (filter && !filter.test(filterByName ? entry.dirent.name : entry.rel)) continue;
        const inner = await confinePath(entry.abs, 'read', ctx);
        if (!inner.ok) continue;
        const display = start.inside ? path.posix.join(start.display, entry.rel) : entry.abs;
        files.push({ real: inner.path.real, display });
      }
    } else {
      files.push(start);
    }

    const limit = args.max_matches ?? 200;
    const lines: string[] = [];
    let bytes = 0;
    let full = false;
    for (const file of files) {
      if (full) break;
      let data: Buffer;
      try {
        const info = await stat(file.real);
        if (!info.isFile() || info.size > MAX_FILE_BYTES) continue;
        data = await readFile(file.real);
      } catch {
        continue;
      }
      if (data.subarray(0, 8192).includes(0)) continue;
      const fileLines = data.toString('utf8').split('\n');
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i] as string;
        if (!re.test(line)) continue;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        const out = `${file.display}:${i + 1}: ${shown}`;
        bytes += Buffer.byteLength(out) + 1;
        if (lines.length >= limit || bytes > MAX_OUTPUT_BYTES) {
          full = true;
          break;
        }
        lines.push(out);
      }
    }
    if (lines.length === 0) return success(`no matches for \`${args.pattern}\` in ${start.display}`);
    const notes: string[] = [];
    if (full)
      notes.push(
        `[stopped after ${lines.length} matching lines; narrow the pattern, path or glob, or raise max_matches]`,
      );
    if (stopped) notes.push('[the search stopped early in a very large tree; pass a narrower path]');
    return success([...lines, ...notes].join('\n'));
  },
});
