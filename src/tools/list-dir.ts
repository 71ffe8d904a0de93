import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { confineForTool, defineTool, failure, success } from './tool.js';
import { sortBytewise } from './walk.js';

const MAX_LISTED = 2000;

const schema = z
  .object({
    path: z.string().min(1).optional().describe('Directory to list, relative to the working directory (default ".").'),
  })
  .strict();

async function describe(dir: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name}@`;
  try {
    return `${entry.name}  (${(await stat(path.join(dir, entry.name))).size} bytes)`;
  } catch {
    return entry.name;
  }
}

export const listDirTool = defineTool({
  name: 'list_dir',
  description:
    'List a directory inside the working directory: subdirectories end with "/", symbolic links with "@", files show their size.',
  schema,
  async run(args, ctx) {
    const confined = await confineForTool(args.path ?? '.', 'read', ctx);
    if (!confined.ok) return confined.outcome;
    const { real, display } = confined.path;
    let entries: Dirent[];
    try {
      const info = await stat(real);
      if (!info.isDirectory())
        return failure('not-a-directory', `${display} is a file, not a directory; use read_file to read it.`);
      entries = await readdir(real, { withFileTypes: true });
    } catch {
      return failure('not-found', `${display} does not exist; list its parent directory to see what is there.`);
    }
    const byName = new Map(entries.map((e) => [e.name, e]));
    const names = sortBytewise([...byName.keys()]);
    if (names.length === 0) return success(`${display}: empty directory`);
    const shown = names.slice(0, MAX_LISTED);
    const lines = await Promise.all(shown.map((name) => describe(real, byName.get(name) as Dirent)));
    const more =
      names.length > shown.length
        ? `\n[${names.length - shown.length} more entries not shown; use glob to narrow down]`
        : '';
    return success(`${display}: ${names.length} entr${names.length === 1 ? 'y' : 'ies'}\n${lines.join('\n')}${more}`);
  },
});
