/**
 * Replaces a file's content in one step (temporary file plus rename in the
 * same directory), keeping the old file's mode, so a crash or a retried
 * activity never leaves half a file behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeAtomic(real: string, content: string): Promise<void> {
  const dir = path.dirname(real);
  await mkdir(dir, { recursive: true });
  let mode = 0o666;
  try {
    mode = (await stat(real)).mode & 0o7777;
  } catch {
    // A new file gets the default mode.
  }
  const tmp = path.join(dir, `.${path.basename(real)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, content, { flag: 'wx', mode });
    await rename(tmp, real);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
