import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { confineForTool, defineTool, failure, success, withRetryNote } from './tool.js';
import { writeAtomic } from './write-atomic.js';

const schema = z
  .object({
    path: z.string().min(1).describe('File to edit, relative to the working directory.'),
    old_string: z
      .string()
      .min(1)
      .describe(
        'Exact text to replace, including whitespace and indentation; it must appear exactly once unless replace_all is true.',
      ),
    new_string: z.string().describe('Text to put in its place.'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence instead of requiring exactly one (default false).'),
  })
  .strict();

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace exact text in a file inside the working directory: old_string must match exactly once (or set replace_all). Read the file first and copy the text exactly.',
  schema,
  async run(args, ctx) {
    if (args.old_string === args.new_string) {
      return failure(
        'bad-argument',
        '`old_string` and `new_string` are identical, so there is nothing to change; pass the new text in `new_string`.',
      );
    }
    const confined = await confineForTool(args.path, 'write', ctx);
    if (!confined.ok) return confined.outcome;
    const { real, display } = confined.path;
    let text: string;
    try {
      if ((await stat(real)).isDirectory())
        return failure('is-a-directory', `${display} is a directory; use list_dir to find the file to edit.`);
      text = await readFile(real, 'utf8');
    } catch {
      return failure(
        'not-found',
        `${display} does not exist; use write_file to create it, or glob to find the right path.`,
      );
    }

    const count = countOccurrences(text, args.old_string);
    if (count === 0) {
      const alreadyThere = args.new_string !== '' && text.includes(args.new_string);
      if (alreadyThere && ctx.attempt > 1) {
        return withRetryNote(
          success(
            `${display}: this edit was already applied (old_string is gone and new_string is present); nothing was changed.`,
            {
              modifiedPaths: [display],
            },
          ),
          ctx,
        );
      }
      let hint = ' Read the file again and copy the text exactly, including whitespace and indentation.';
      if (alreadyThere)
        hint = ' new_string is already in the file, so the edit may have been made before; read the file to check.';
      else if (squash(text).includes(squash(args.old_string)))
        hint = ' A match exists if whitespace is ignored: check indentation, tabs and line endings.';
      return failure('edit-no-match', `\`old_string\` was not found in ${display}.${hint}`);
    }
    if (count > 1 && !args.replace_all) {
      return failure(
        'edit-ambiguous',
        `\`old_string\` appears ${count} times in ${display}; include more surrounding lines so it matches once, or set replace_all: true to replace all ${count}.`,
      );
    }
    const firstLine = lineOf(text, text.indexOf(args.old_string));
    await writeAtomic(real, text.split(args.old_string).join(args.new_string));
    const what =
      count === 1 ? `1 occurrence at line ${firstLine}` : `${count} occurrences (first at line ${firstLine})`;
    return withRetryNote(success(`edited ${display}: replaced ${what}`, { modifiedPaths: [display] }), ctx);
  },
});
