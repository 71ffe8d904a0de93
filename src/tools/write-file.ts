import { z } from 'zod';
import { openForWrite, readExisting, replaceIn } from './open-once.js';
import { bytesLabel, defineTool, failure, success, withRetryNote } from './tool.js';

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
    const target = await openForWrite(args.path, ctx);
    if (!target.ok) return failure(target.code, target.message);
    const { display } = target;
    const size = Buffer.byteLength(args.content);
    const file = { key: display, text: args.content };
    try {
      const existing = await readExisting(target, args.path);
      if (!existing.ok) return failure(existing.code, existing.message);
      if (existing.exists && existing.text.equals(Buffer.from(args.content))) {
        const outcome = success(
          `${display} already holds exactly this content (${bytesLabel(size)}); nothing was written.`,
          { file },
        );
        // On a retry the first attempt may be the one that wrote it.
        return withRetryNote(ctx.attempt > 1 ? { ...outcome, modifiedPaths: [display] } : outcome, ctx);
      }
      await replaceIn(target, args.content, existing.exists ? existing.mode : undefined);
      const verb = existing.exists ? 'replaced' : 'created';
      return withRetryNote(
        success(`${verb} ${display} (${bytesLabel(size)})`, { modifiedPaths: [display], file }),
        ctx,
      );
    } finally {
      await target.dir.close();
    }
  },
});
