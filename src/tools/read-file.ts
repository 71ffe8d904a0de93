import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { bytesLabel, confineForTool, defineTool, failure, success } from './tool.js';

/** docs/reference/routing.md#caps: the tool's own hard cap, whatever the routing caps say. */
export const READ_FILE_CAP_BYTES = 262_144;

const schema = z
  .object({
    path: z.string().min(1).describe('File to read, relative to the working directory.'),
    offset: z.number().int().min(0).optional().describe('Byte offset to start reading at (default 0).'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Maximum number of bytes to return (default and maximum ${READ_FILE_CAP_BYTES}).`),
  })
  .strict();

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

export const readFileTool = defineTool({
  name: 'read_file',
  description: `Read a text file inside the working directory (or a granted read path). Returns at most ${READ_FILE_CAP_BYTES} bytes per call; use offset and limit to read large files in parts.`,
  schema,
  async run(args, ctx) {
    const confined = await confineForTool(args.path, 'read', ctx);
    if (!confined.ok) return confined.outcome;
    const { real, display } = confined.path;
    let size: number;
    try {
      const info = await stat(real);
      if (info.isDirectory())
        return failure('is-a-directory', `${display} is a directory; use list_dir to see what it holds.`);
      size = info.size;
    } catch {
      return failure('not-found', `${display} does not exist; use list_dir or glob to find the file.`);
    }
    const offset = args.offset ?? 0;
    if (offset > 0 && offset >= size) {
      return failure(
        'bad-argument',
        `\`offset\` ${offset} is at or past the end of ${display}, which is ${bytesLabel(size)}; pass a smaller offset.`,
      );
    }
    const want = Math.min(args.limit ?? READ_FILE_CAP_BYTES, READ_FILE_CAP_BYTES, size - offset);
    const buf = Buffer.alloc(want + 1);
    let got: number;
    const handle = await open(real, 'r');
    try {
      got = (await handle.read(buf, 0, want + 1, offset)).bytesRead;
    } finally {
      await handle.close();
    }
    let end = Math.min(got, want);
    // Stop on a character boundary, so the next offset starts a whole character.
    if (got > want) while (end > 0 && isContinuationByte(buf[end])) end--;
    const shown = buf.subarray(0, end);
    if (shown.includes(0)) {
      return failure(
        'binary-file',
        `${display} looks binary (it contains NUL bytes); read_file shows text files only.`,
      );
    }
    const text = shown.toString('utf8');
    const stop = offset + end;
    if (size === 0) return success(`(${display} is empty)`);
    if (stop >= size) return success(text);
    const capped = (args.limit ?? READ_FILE_CAP_BYTES) >= READ_FILE_CAP_BYTES;
    const why = capped
      ? `read_file returns at most ${bytesLabel(READ_FILE_CAP_BYTES)} per call`
      : `limit was ${bytesLabel(args.limit ?? 0)}`;
    return success(
      `${text}\n\n[${display} is ${bytesLabel(size)}; showed bytes ${offset}-${stop} (${bytesLabel(end)}) because ${why}. Call read_file with offset=${stop} to read further.]`,
    );
  },
});
