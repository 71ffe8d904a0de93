/**
 * File access for path tools and seeds that opens once and checks what was
 * opened. Checking a path and then opening it again by name lets a symbolic
 * link swapped in between redirect the open outside the workdir; here the
 * path check only chooses what to open, and the descriptor decides:
 *
 * - reads open the canonical path one component at a time, each with
 *   `O_NOFOLLOW`, the last with `O_NONBLOCK` too (so a FIFO cannot hang the
 *   open), then ask the kernel where the descriptor really is
 *   (`/proc/self/fd/N`) and confine that;
 * - writes walk from the workdir one component at a time, each opened
 *   relative to the one before (`/proc/self/fd/N/<name>`) with `O_NOFOLLOW`,
 *   so no link is followed on the way, and replace the file by a temporary
 *   file and a rename inside that opened directory;
 * - only regular files are read or written: FIFOs, sockets and devices are
 *   refused;
 * - a regular file with more than one hard link is read, but never written:
 *   replacing it would leave its other names with the old content, and
 *   writing in place would change a file that may lie outside the workdir.
 *   Sandboxed commands cannot make such a link (the workdir is its own
 *   mount), so one only exists when a person made it.
 */
import { randomBytes } from 'node:crypto';
import { constants, realpathSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RuntimeCode } from '../errors.js';
import { type Access, type ConfineOptions, confinePathSync, isWithin } from './confine.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

export type Refusal = { ok: false; code: RuntimeCode; message: string };

export interface Placed {
  /** Where the opened descriptor really is. */
  real: string;
  /** Workdir-relative (`/`-separated) when inside, else the real path. */
  display: string;
  inside: boolean;
}

export interface OpenedFile extends Placed {
  handle: FileHandle;
  info: Stats;
}

function refuse(code: RuntimeCode, message: string): Refusal {
  return { ok: false, code, message };
}

function fdPath(handle: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`;
}

function workdirRoot(opts: ConfineOptions): string | undefined {
  try {
    return realpathSync(path.resolve(opts.workdir));
  } catch {
    return undefined;
  }
}

function workdirMissing(opts: ConfineOptions): Refusal {
  return refuse(
    'workdir-missing',
    `The working directory ${opts.workdir} does not exist; create it or run from an existing directory.`,
  );
}

function changed(input: string): Refusal {
  return refuse(
    'path-changed',
    `\`${input}\` changed while it was being opened (a symbolic link appeared or moved on the way), so nothing was read or written; try again once the files stop changing.`,
  );
}

/** Where an open descriptor lies, confined like a path: inside the workdir, or (reads) a granted read path. */
async function place(handle: FileHandle, input: string, access: Access, opts: ConfineOptions, root: string) {
  const where = await readlink(fdPath(handle));
  if (where.endsWith(' (deleted)')) return changed(input);
  if (isWithin(root, where)) {
    const rel = path.relative(root, where).split(path.sep).join('/');
    return { ok: true as const, placed: { real: where, display: rel === '' ? '.' : rel, inside: true } };
  }
  if (access === 'read' && opts.readPolicy.allows(where)) {
    return { ok: true as const, placed: { real: where, display: where, inside: false } };
  }
  return refuse(
    'path-outside-workdir',
    `\`${input}\` led to ${where}, outside the working directory ${root}, because a symbolic link on the way changed while it was opened; nothing was read or written. Use a path inside the workdir.`,
  );
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function notRegular(display: string, info: Stats): Refusal {
  return refuse(
    'not-a-regular-file',
    `${display} is ${kindOf(info)}; file tools read and write regular files only, so use a regular file instead.`,
  );
}

type Want = 'file' | 'dir';

/**
 * Opens a canonical absolute path one component at a time from `/`, each
 * relative to the directory opened before and without following links, so
 * nothing outside the path is ever opened (not even a device a swapped
 * link points at). A link met on the way fails with ELOOP.
 */
async function openNoFollow(real: string, flags: number): Promise<FileHandle> {
  const parts = real.split('/').filter((p) => p !== '');
  const last = parts.pop();
  if (last === undefined) return open('/', flags | O_NOFOLLOW);
  let dir = await open('/', O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      let next: FileHandle;
      try {
        next = await open(fdPath(dir, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        // Every folder of a canonical path was a real directory when it was checked: one that is a
        // link (ENOTDIR under O_NOFOLLOW) or gone has been swapped since, which is a changed path.
        if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') throw Object.assign(err as Error, { code: 'ELOOP' });
        throw err;
      }
      await dir.close();
      dir = next;
    }
    return await open(fdPath(dir, last), flags | O_NOFOLLOW);
  } finally {
    await dir.close();
  }
}

/**
 * Opens a path for reading and checks the opened descriptor. `missing` is
 * set when nothing exists there, so callers can word their own not-found.
 */
export async function openForRead(
  input: string,
  opts: ConfineOptions,
  want: Want | 'any',
): Promise<({ ok: true } & OpenedFile) | (Refusal & { missing?: boolean })> {
  const confined = confinePathSync(input, 'read', opts);
  if (!confined.ok) return confined;
  const root = workdirRoot(opts);
  if (root === undefined) return workdirMissing(opts);
  if (!confined.path.exists)
    return { ...refuse('not-found', `${confined.path.display} does not exist`), missing: true };
  let handle: FileHandle;
  try {
    handle = await openNoFollow(confined.path.real, O_RDONLY | O_NONBLOCK | (want === 'dir' ? O_DIRECTORY : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...refuse('not-found', `${confined.path.display} does not exist`), missing: true };
    if (code === 'ELOOP') return changed(input);
    if (code === 'ENOTDIR') return refuse('not-a-directory', `${confined.path.display} is not a directory`);
    if (code === 'ENXIO')
      return refuse('not-a-regular-file', `${confined.path.display} is a socket; file tools read regular files only.`);
    return refuse(
      'file-unreadable',
      `${confined.path.display} cannot be opened (${(err as Error).message}); check its permissions.`,
    );
  }
  try {
    const placed = await place(handle, input, 'read', opts, root);
    if (!placed.ok) {
      await handle.close();
      return placed;
    }
    const info = await handle.stat();
    if (!info.isFile() && !info.isDirectory()) {
      await handle.close();
      return notRegular(placed.placed.display, info);
    }
    return { ok: true, ...placed.placed, handle, info };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Size of an entry of an opened directory, without following a link or opening the entry (a device could react). */
export async function entrySize(dir: FileHandle, name: string): Promise<number | undefined> {
  try {
    return (await lstat(fdPath(dir, name))).size;
  } catch {
    return undefined;
  }
}

export interface WriteTarget extends Placed {
  /** The opened parent directory; the file is `name` inside it. */
  dir: FileHandle;
  name: string;
}

/**
 * Opens the parent directory of a path to write, creating missing parents,
 * one component at a time from the workdir without following any link.
 */
export async function openForWrite(
  input: string,
  opts: ConfineOptions,
): Promise<({ ok: true } & WriteTarget) | Refusal> {
  const confined = confinePathSync(input, 'write', opts);
  if (!confined.ok) return confined;
  const root = workdirRoot(opts);
  if (root === undefined) return workdirMissing(opts);
  const parts = path.relative(root, confined.path.real).split(path.sep);
  const name = parts.pop();
  if (name === undefined || name === '') {
    return refuse(
      'is-a-directory',
      `${confined.path.display} is the working directory itself; choose a file path inside it.`,
    );
  }
  let dir: FileHandle;
  try {
    dir = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    return changed(input);
  }
  try {
    const top = await place(dir, input, 'write', opts, root);
    if (!top.ok || top.placed.real !== root) {
      await dir.close();
      return top.ok ? changed(input) : top;
    }
    for (const part of parts) {
      const next = await openChildDir(dir, part);
      await dir.close();
      if (!next) return changed(input);
      dir = next;
    }
    return { ok: true, dir, name, real: confined.path.real, display: confined.path.display, inside: true };
  } catch (err) {
    await dir.close();
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' || (err as NodeJS.ErrnoException).code === 'EEXIST') {
      return refuse(
        'not-a-directory',
        `A parent of ${confined.path.display} is a file, not a directory; choose another path.`,
      );
    }
    throw err;
  }
}

/** Opens (creating it when missing) the directory `name` inside `dir`; undefined when a link stands there. */
async function openChildDir(dir: FileHandle, name: string): Promise<FileHandle | undefined> {
  const flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
  try {
    return await open(fdPath(dir, name), flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return undefined;
    if (code !== 'ENOENT') throw err;
  }
  await mkdir(fdPath(dir, name));
  try {
    return await open(fdPath(dir, name), flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw err;
  }
}

type Existing = { ok: true; exists: false } | { ok: true; exists: true; text: Buffer; mode: number } | Refusal;

/** The current content of the file a write would replace, checked like a read. */
export async function readExisting(target: WriteTarget, input: string): Promise<Existing> {
  let handle: FileHandle;
  try {
    handle = await open(fdPath(target.dir, target.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, exists: false };
    if (code === 'ELOOP') return changed(input);
    if (code === 'ENXIO')
      return refuse('not-a-regular-file', `${target.display} is a socket; file tools write regular files only.`);
    throw err;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) {
      return refuse(
        'is-a-directory',
        `${target.display} is a directory; choose a file path inside it (use list_dir to see it).`,
      );
    }
    if (!info.isFile()) return notRegular(target.display, info);
    if (info.nlink > 1) {
      return refuse(
        'file-hard-linked',
        `${target.display} has ${info.nlink} hard links, so it may be the same file as one outside the working directory; file tools do not write such files. Remove the other links, or copy the file to a new name and edit that.`,
      );
    }
    return { ok: true, exists: true, text: await handle.readFile(), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

/** Replaces the file in one step: a temporary file and a rename, both inside the opened directory. */
export async function replaceIn(target: WriteTarget, content: string, mode = 0o666): Promise<void> {
  const tmp = `.${target.name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(fdPath(target.dir, tmp), content, { flag: 'wx', mode });
    await rename(fdPath(target.dir, tmp), fdPath(target.dir, target.name));
  } catch (err) {
    await rm(fdPath(target.dir, tmp), { force: true });
    throw err;
  }
}

/** Reads an opened file's bytes from `offset`, at most `length`; closes nothing. */
export async function readRange(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, offset + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/**
 * Text from bytes: invalid UTF-8 becomes U+FFFD, and the caller is told, so
 * a note can say the file is not valid UTF-8 instead of passing it silently.
 */
export function decodeText(bytes: Buffer): { text: string; invalid: boolean } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), invalid: false };
  } catch {
    return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes), invalid: true };
  }
}
