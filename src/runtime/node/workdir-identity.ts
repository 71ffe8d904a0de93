/**
 * A workdir's identity (docs/reference/long-runs.md#a-tool-worker-that-outlives-its-process):
 * a random id kept in the workdir itself, `.leviath/workdir-id`, written by
 * the first `lev run` or tool worker that needs it. The same files reached
 * at another path (a shared volume mounted elsewhere, a replacement
 * container, a symlink) have the same identity, so the run's tool queue is
 * named by it and any tool worker serving those files takes the run's calls.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { LevError } from '../../errors.js';

/** Where the identity lives, relative to the workdir. */
export const IDENTITY_FILE = join('.leviath', 'workdir-id');

/** What an identity looks like: the workdir's name when it was first given one, and 12 random hex digits. */
const IDENTITY = /^[a-z0-9][a-z0-9-]{0,40}-[0-9a-f]{12}$/;

/** Errors of a workdir that cannot hold a file of Leviath's: the caller falls back to the host-named queue. */
const READ_ONLY = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The workdir's identity when it has one; throws `workdir-id-bad` when the file holds something else. */
export function readWorkdirIdentity(workdir: string): string | undefined {
  const file = join(resolve(workdir), IDENTITY_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw err;
  }
  const id = text.trim();
  if (!IDENTITY.test(id))
    throw new LevError(
      'workdir-id-bad',
      `${file} does not hold a workdir identity; delete it (the next \`lev run\` or tool worker writes a new one) and restart the tool workers of this workdir.`,
    );
  return id;
}

/**
 * The workdir's identity, written first when it has none. Two processes
 * writing at once agree: each links a finished file into place, and the one
 * that loses reads the winner's. Undefined when the workdir is not a
 * directory here or cannot be written (read-only, not ours).
 */
export function workdirIdentity(workdir: string): string | undefined {
  const own = readWorkdirIdentity(workdir);
  if (own) return own;
  if (!statSync(resolve(workdir), { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const dir = join(resolve(workdir), '.leviath');
  const file = join(dir, 'workdir-id');
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      // A workdir that is a git checkout keeps the folder out of its status.
      writeFileSync(join(dir, '.gitignore'), '*\n');
    }
    writeFileSync(draft, `${newIdentity(workdir)}\n`);
    linkSync(draft, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (READ_ONLY.has(code)) return undefined;
    if (code !== 'EEXIST') throw err;
  } finally {
    try {
      unlinkSync(draft);
    } catch {
      // Never written: nothing to clean up.
    }
  }
  return readWorkdirIdentity(workdir);
}

function newIdentity(workdir: string): string {
  const name =
    basename(resolve(workdir))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 24)
      .replace(/-+$/, '') || 'workdir';
  return `${name}-${randomBytes(6).toString('hex')}`;
}
