import path from 'node:path';
import { RE2JS } from 're2js';
import { z } from 'zod';
import { compileGlob, type GlobMatcher } from './glob-pattern.js';
import { type OpenedFile, openForRead, readRange } from './open-once.js';
import { defineTool, failure, success } from './tool.js';
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
      .describe(
        'Regular expression (RE2 syntax: no lookaround or backreferences) to search for, or plain text with literal: true.',
      ),
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

/**
 * The model's pattern on RE2 (re2js): matching takes time linear in the
 * line whatever the pattern, so `(a+)+$` cannot wedge the worker.
 */
function compilePattern(args: { pattern: string; literal?: boolean; ignore_case?: boolean }): RE2JS | string {
  try {
    return RE2JS.compile(
      args.literal ? RE2JS.quote(args.pattern) : args.pattern,
      args.ignore_case ? RE2JS.CASE_INSENSITIVE : 0,
    );
  } catch (err) {
    return (err as Error).message;
  }
}

async function readWhole(opened: OpenedFile): Promise<Buffer | undefined> {
  try {
    if (!opened.info.isFile() || opened.info.size > MAX_FILE_BYTES) return undefined;
    return await readRange(opened.handle, 0, opened.info.size);
  } finally {
    await opened.handle.close();
  }
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents inside the working directory. Prints "path:line: text" for each matching line; binary files, symbolic links, .git and node_modules are skipped in directory searches.',
  schema,
  async run(args, ctx) {
    const re = compilePattern(args);
    if (typeof re === 'string') {
      return failure(
        'bad-argument',
        `\`pattern\` is not a valid RE2 regular expression (${re}); RE2 has no lookaround or backreferences, so rewrite it without them, or pass literal: true to search for the text as written.`,
      );
    }
    let filter: GlobMatcher | undefined;
    try {
      filter = args.glob === undefined ? undefined : compileGlob(args.glob);
    } catch (err) {
      return failure('bad-argument', `\`glob\` does not compile (${(err as Error).message}); check its [..] classes.`);
    }
    const opened = await openForRead(args.path ?? '.', ctx, 'any');
    if (!opened.ok) {
      if ('missing' in opened && opened.missing)
        return failure('not-found', `${opened.message}; use list_dir or glob to find what to search.`);
      return failure(opened.code, opened.message);
    }
    const start = { real: opened.real, display: opened.display, inside: opened.inside };
    const filterByName = args.glob !== undefined && !args.glob.includes('/');
    const files: { path: string; display: string }[] = [];
    let stopped = false;
    let single: OpenedFile | undefined;
    if (opened.info.isDirectory()) {
      await opened.handle.close();
      const walked = await walk(start.real, {
        maxEntries: MAX_WALK_ENTRIES,
        enterDir: (_rel, name) => !SKIPPED_DIRS.includes(name),
      });
      stopped = walked.stopped;
      for (const entry of walked.entries) {
        // Links are not followed in a tree search (they would repeat files); name one to search it.
        if (!entry.dirent.isFile()) continue;
        if (filter && !filter.test(filterByName ? entry.dirent.name : entry.rel)) continue;
        const display = start.inside ? path.posix.join(start.display, entry.rel) : entry.abs;
        files.push({ path: entry.abs, display });
      }
    } else {
      single = opened;
    }

    const limit = args.max_matches ?? 200;
    const lines: string[] = [];
    let bytes = 0;
    let full = false;
    const search = (data: Buffer, display: string) => {
      if (data.subarray(0, 8192).includes(0)) return;
      const fileLines = data.toString('utf8').split('\n');
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i] as string;
        if (!re.matcher(line).find()) continue;
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        const out = `${display}:${i + 1}: ${shown}`;
        bytes += Buffer.byteLength(out) + 1;
        if (lines.length >= limit || bytes > MAX_OUTPUT_BYTES) {
          full = true;
          return;
        }
        lines.push(out);
      }
    };
    if (single) {
      const data = await readWhole(single);
      if (data) search(data, single.display);
    }
    for (const file of files) {
      if (full) break;
      // Each file is opened once and checked, like a read_file of it.
      const one = await openForRead(file.path, ctx, 'file');
      if (!one.ok) continue;
      const data = await readWhole(one);
      if (data) search(data, file.display);
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
