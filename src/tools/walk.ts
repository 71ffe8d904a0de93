/**
 * Directory walks for `glob`, `grep` and glob seeds. Symlinked directories
 * are not entered (they could leave the workdir or loop); symlinked files
 * are yielded and the caller confines them like any other path.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Directories a wildcard does not enter unless the pattern names them. */
export const SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

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
}

export interface WalkResult {
  entries: WalkEntry[];
  /** True when `maxEntries` stopped the walk early. */
  stopped: boolean;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function sortBytewise(items: string[]): string[] {
  return items.sort(byteOrder);
}

export async function walk(root: string, opts: WalkOptions): Promise<WalkResult> {
  const entries: WalkEntry[] = [];
  const pending: string[] = [''];
  for (let next = 0; next < pending.length; next++) {
    const relDir = pending[next] as string;
    let dirents: Dirent[];
    try {
      dirents = await readdir(path.join(root, relDir), { withFileTypes: true });
    } catch {
      continue;
    }
    dirents.sort((a, b) => byteOrder(a.name, b.name));
    for (const dirent of dirents) {
      if (entries.length >= opts.maxEntries) return { entries, stopped: true };
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      entries.push({ rel, abs: path.join(root, rel), dirent });
      if (dirent.isDirectory() && (opts.enterDir?.(rel, dirent.name) ?? true)) pending.push(rel);
    }
  }
  return { entries, stopped: false };
}
