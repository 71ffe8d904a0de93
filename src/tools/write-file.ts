import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { bytesLabel, confineForTool, defineTool, failure, success, withRetryNote } from './tool.js';
import { writeAtomic } from './write-atomic.js';

const schema = z
  .object({
    path: z
      .string()
      .min(1)
      .describe('File to write, relative to the working directory; parent directories are created.'),
    content: z.string().describe('The complete new content of the file.'),
  })
  .strict();

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create or overwrite a file inside the working directory with the given content. Writing content the file already has changes nothing.',
  schema,
  async run(args, ctx) {
    const confined = await confineForTool(args.path, 'write', ctx);
    if (!confined.ok) return confined.outcome;
    const { real, display } = confined.path;
    const size = Buffer.byteLength(args.content);
    let existing: string | undefined;
    try {
      const info = await stat(real);
      if (info.isDirectory())
        return failure(
          'is-a-directory',
          `${display} is a directory; choose a file path inside it (use list_dir to see it).`,
        );
      existing = await readFile(real, 'utf8');
    } catch {
      existing = undefined;
    }
    if (existing === args.content) {
      const outcome = success(
        `${display} already holds exactly this content (${bytesLabel(size)}); nothing was written.`,
      );
      // On a retry the first attempt may be the one that wrote it.
      return withRetryNote(ctx.attempt > 1 ? { ...outcome, modifiedPaths: [display] } : outcome, ctx);
    }
    await writeAtomic(real, args.content);
    const verb = existing === undefined ? 'created' : 'replaced';
    return withRetryNote(success(`${verb} ${display} (${bytesLabel(size)})`, { modifiedPaths: [display] }), ctx);
  },
});
