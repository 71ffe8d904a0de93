/**
 * Directory walks for `glob`, `grep` and glob seeds. Symlinked directories
 * are not entered (they could leave the workdir or loop); symlinked files
 * are yielded and the caller confines them like any other path. Each
 * directory is opened without following links and listed through its
 * descriptor only when the kernel places it exactly where the walk expects,
 * so a directory swapped for a link mid-walk is skipped, not listed. A walk
 * is bounded in entries, depth and time.
 */
import { constants, type Dirent } from 'node:fs';
import { open, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';

/** Directories a wildcard does not enter unless the pattern names them. */
export const SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

/** No walk goes deeper than this below its root. */
export const MAX_WALK_DEPTH = 64;

/** No walk lasts longer than this; what was found so far is returned. */
export const WALK_TIME_BUDGET_MS = 10_000;

export interface WalkEntry {
  /** `/`-separated, relative to the walk's root. */
  rel: string;
  abs: string;
  dirent: Dirent;
}

export interface WalkOptions {
  /** Stop after visiting this many entries. */
  maxEntries: number;
  /** Return false to leave a directory out. */
  enterDir?: (rel: string, name: string) => boolean;
  /** Directories deeper than this are not entered (default {@link MAX_WALK_DEPTH}). */
  maxDepth?: number;
  /** Milliseconds the walk may take (default {@link WALK_TIME_BUDGET_MS}). */
  timeBudgetMs?: number;
}

export interface WalkResult {
  entries: WalkEntry[];
  /** True when a budget (entries, depth or time) stopped the walk early. */
  stopped: boolean;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function sortBytewise(items: string[]): string[] {
  return items.sort(byteOrder);
}

/** The entries of `dir`, or undefined when it is not (any longer) a real directory at that path. */
async function listExactly(dir: string): Promise<Dirent[] | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if ((await readlink(`/proc/self/fd/${handle.fd}`)) !== dir) return undefined;
    return await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Walks below `root`, which must be a canonical (symlink-free) absolute path. */
export async function walk(root: string, opts: WalkOptions): Promise<WalkResult> {
  const entries: WalkEntry[] = [];
  const pending: string[] = [''];
  const maxDepth = opts.maxDepth ?? MAX_WALK_DEPTH;
  const deadline = Date.now() + (opts.timeBudgetMs ?? WALK_TIME_BUDGET_MS);
  let stopped = false;
  for (let next = 0; next < pending.length; next++) {
    if (Date.now() > deadline) return { entries, stopped: true };
    const relDir = pending[next] as string;
    const dirents = await listExactly(relDir === '' ? root : path.join(root, relDir));
    if (!dirents) continue;
    dirents.sort((a, b) => byteOrder(a.name, b.name));
    for (const dirent of dirents) {
      if (entries.length >= opts.maxEntries) return { entries, stopped: true };
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      entries.push({ rel, abs: path.join(root, rel), dirent });
      if (!dirent.isDirectory() || !(opts.enterDir?.(rel, dirent.name) ?? true)) continue;
      if (rel.split('/').length > maxDepth) stopped = true;
      else pending.push(rel);
    }
  }
  return { entries, stopped };
}
