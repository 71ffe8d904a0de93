import { z } from 'zod';
import { decodeText, openForWrite, readExisting, replaceIn, type WriteTarget } from './open-once.js';
import { defineTool, failure, success, type ToolContext, type ToolOutcome, withRetryNote } from './tool.js';

type EditArgs = z.infer<typeof schema>;

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
    const target = await openForWrite(args.path, ctx);
    if (!target.ok) return failure(target.code, target.message);
    try {
      return await edit(target, args, ctx);
    } finally {
      await target.dir.close();
    }
  },
});

async function edit(target: WriteTarget, args: EditArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { display } = target;
  const existing = await readExisting(target, args.path);
  if (!existing.ok) return failure(existing.code, existing.message);
  if (!existing.exists) {
    return failure(
      'not-found',
      `${display} does not exist; use write_file to create it, or glob to find the right path.`,
    );
  }
  const decoded = decodeText(existing.text);
  if (decoded.invalid) {
    return failure(
      'file-not-utf8',
      `${display} is not valid UTF-8, and editing it as text would replace the invalid bytes; rewrite it whole with write_file, or fix its encoding first.`,
    );
  }
  const text = decoded.text;
  const count = countOccurrences(text, args.old_string);
  if (count === 0) {
    const alreadyThere = args.new_string !== '' && text.includes(args.new_string);
    if (alreadyThere && ctx.attempt > 1) {
      return withRetryNote(
        success(
          `${display}: this edit was already applied (old_string is gone and new_string is present); nothing was changed.`,
          {
            modifiedPaths: [display],
            file: { key: display, text },
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
  const next = text.split(args.old_string).join(args.new_string);
  await replaceIn(target, next, existing.mode);
  const what = count === 1 ? `1 occurrence at line ${firstLine}` : `${count} occurrences (first at line ${firstLine})`;
  return withRetryNote(
    success(`edited ${display}: replaced ${what}`, { modifiedPaths: [display], file: { key: display, text: next } }),
    ctx,
  );
}
