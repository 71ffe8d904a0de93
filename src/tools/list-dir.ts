import type { Dirent } from 'node:fs';
import { type FileHandle, readdir } from 'node:fs/promises';
import { z } from 'zod';
import { entrySize, openForRead } from './open-once.js';
import { defineTool, failure, success } from './tool.js';
import { sortBytewise } from './walk.js';

const MAX_LISTED = 2000;

const schema = z
  .object({
    path: z.string().min(1).optional().describe('Directory to list, relative to the working directory (default ".").'),
  })
  .strict();

async function describe(dir: FileHandle, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name}@`;
  const size = await entrySize(dir, entry.name);
  return size === undefined ? entry.name : `${entry.name}  (${size} bytes)`;
}

export const listDirTool = defineTool({
  name: 'list_dir',
  description:
    'List a directory inside the working directory: subdirectories end with "/", symbolic links with "@", files show their size.',
  schema,
  async run(args, ctx) {
    const opened = await openForRead(args.path ?? '.', ctx, 'dir');
    if (!opened.ok) {
      if (opened.code === 'not-a-directory')
        return failure('not-a-directory', `${opened.message}; use read_file to read a file.`);
      if ('missing' in opened && opened.missing)
        return failure('not-found', `${opened.message}; list its parent directory to see what is there.`);
      return failure(opened.code, opened.message);
    }
    const { display, handle } = opened;
    let names: string[];
    let lines: string[];
    try {
      const entries = await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
      const byName = new Map(entries.map((e) => [e.name, e]));
      names = sortBytewise([...byName.keys()]);
      lines = await Promise.all(names.slice(0, MAX_LISTED).map((name) => describe(handle, byName.get(name) as Dirent)));
    } finally {
      await handle.close();
    }
    if (names.length === 0) return success(`${display}: empty directory`);
    const more =
      names.length > lines.length
        ? `\n[${names.length - lines.length} more entries not shown; use glob to narrow down]`
        : '';
    return success(`${display}: ${names.length} entr${names.length === 1 ? 'y' : 'ies'}\n${lines.join('\n')}${more}`);
  },
});
