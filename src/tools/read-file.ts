import { z } from 'zod';
import { decodeText, openForRead, readRange } from './open-once.js';
import { bytesLabel, defineTool, failure, success } from './tool.js';

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
    const opened = await openForRead(args.path, ctx, 'file');
    if (!opened.ok) {
      if ('missing' in opened && opened.missing)
        return failure('not-found', `${opened.message}; use list_dir or glob to find the file.`);
      return failure(opened.code, opened.message);
    }
    const { display, handle, info } = opened;
    const size = info.size;
    const offset = args.offset ?? 0;
    const want = Math.min(args.limit ?? READ_FILE_CAP_BYTES, READ_FILE_CAP_BYTES, size - offset);
    let buf: Buffer;
    try {
      if (info.isDirectory())
        return failure('is-a-directory', `${display} is a directory; use list_dir to see what it holds.`);
      if (offset > 0 && offset >= size) {
        return failure(
          'bad-argument',
          `\`offset\` ${offset} is at or past the end of ${display}, which is ${bytesLabel(size)}; pass a smaller offset.`,
        );
      }
      // One byte more than shown tells whether the cut falls inside a character.
      buf = await readRange(handle, offset, want + 1);
    } finally {
      await handle.close();
    }
    const got = buf.length;
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
    const { text, invalid } = decodeText(shown);
    const file = { key: display, text };
    const note = invalid ? `\n\n[${display} is not valid UTF-8; bytes that are not were replaced by U+FFFD (�).]` : '';
    const stop = offset + end;
    if (size === 0) return success(`(${display} is empty)`, { file });
    if (stop >= size) return success(`${text}${note}`, { file });
    const capped = (args.limit ?? READ_FILE_CAP_BYTES) >= READ_FILE_CAP_BYTES;
    const why = capped
      ? `read_file returns at most ${bytesLabel(READ_FILE_CAP_BYTES)} per call`
      : `limit was ${bytesLabel(args.limit ?? 0)}`;
    return success(
      `${text}${note}\n\n[${display} is ${bytesLabel(size)}; showed bytes ${offset}-${stop} (${bytesLabel(end)}) because ${why}. Call read_file with offset=${stop} to read further.]`,
      { file },
    );
  },
});
