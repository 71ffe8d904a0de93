/**
 * Expands a glob inside the confinement rules: the pattern's fixed prefix
 * must itself be readable (so `../**` and `/etc/*` are refused up front
 * unless `[read_paths]` grants them), and every match is confined again,
 * so a symbolic link cannot smuggle a file from outside into the results.
 */

import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RuntimeCode } from '../error-codes.js';
import { type ConfinedPath, type ConfineOptions, canonicalWorkdir, confinePath } from './confine.js';
import { compileGlob, type GlobMatcher, staticPrefix } from './glob-pattern.js';
import { SKIPPED_DIRS, walk } from './walk.js';

function byteOrder(a: GlobMatch, b: GlobMatch): number {
  return Buffer.compare(Buffer.from(a.display), Buffer.from(b.display));
}

export interface GlobOptions extends ConfineOptions {
  /** Stop walking after this many directory entries. */
  maxEntries?: number;
}

export interface GlobMatch extends ConfinedPath {
  isDirectory: boolean;
}

export type GlobResult =
  | { ok: true; matches: GlobMatch[]; refused: string[]; stopped: boolean }
  | { ok: false; code: RuntimeCode; message: string };

const DEFAULT_MAX_ENTRIES = 200_000;

/** A glob stops collecting after this many matches. */
export const MAX_GLOB_MATCHES = 10_000;

/** The pattern as an absolute, lexically normalised glob (`~/` expanded). */
export function absoluteGlob(pattern: string, workdir: string, home: string): string {
  const expanded = pattern === '~' ? home : pattern.startsWith('~/') ? path.join(home, pattern.slice(2)) : pattern;
  return path.resolve(workdir, expanded);
}

export async function globFiles(pattern: string, opts: GlobOptions): Promise<GlobResult> {
  if (pattern.includes('\0')) {
    return { ok: false, code: 'path-invalid', message: 'The pattern contains a NUL byte; pass a plain glob pattern.' };
  }
  let root: string;
  try {
    root = await canonicalWorkdir(opts.workdir);
  } catch {
    return {
      ok: false,
      code: 'workdir-missing',
      message: `The working directory ${opts.workdir} does not exist; create it or run from an existing directory.`,
    };
  }
  const absPattern = absoluteGlob(pattern, root, opts.home ?? os.homedir());
  const prefix = staticPrefix(absPattern);
  const base = await confinePath(prefix, 'read', opts);
  if (!base.ok) {
    return {
      ok: false,
      code: base.code,
      message: `The pattern \`${pattern}\` starts outside what may be read: ${base.message}`,
    };
  }
  if (!base.path.exists) return { ok: true, matches: [], refused: [], stopped: false };

  const tail = absPattern.slice(prefix.length).replace(/^\/+/, '');
  const tailParts = tail.split('/');
  const namesDot = tailParts.some((part) => part.startsWith('.'));
  // Without `**` no match is deeper than the pattern, so deeper directories need no visit.
  const maxDirDepth = tailParts.includes('**') ? Number.POSITIVE_INFINITY : tailParts.length - 1;
  let re: GlobMatcher;
  try {
    re = compileGlob(tail);
  } catch (err) {
    return {
      ok: false,
      code: 'bad-argument',
      message: `The pattern \`${pattern}\` does not compile (${(err as Error).message}); check its [..] classes and {..} groups.`,
    };
  }
  const walked = await walk(base.path.real, {
    maxEntries: opts.maxEntries ?? DEFAULT_MAX_ENTRIES,
    enterDir: (rel, name) => {
      if (rel.split('/').length > maxDirDepth) return false;
      if (SKIPPED_DIRS.includes(name) && !tailParts.includes(name)) return false;
      return namesDot || !name.startsWith('.');
    },
  });

  const matches: GlobMatch[] = [];
  const refused: string[] = [];
  let stopped = walked.stopped;
  for (const entry of walked.entries) {
    if (!re.test(entry.rel)) continue;
    if (matches.length >= MAX_GLOB_MATCHES) {
      stopped = true;
      break;
    }
    const confined = await confinePath(entry.abs, 'read', opts);
    if (!confined.ok) {
      refused.push(base.path.inside ? path.posix.join(base.path.display, entry.rel) : entry.abs);
      continue;
    }
    const isDirectory =
      entry.dirent.isDirectory() || (entry.dirent.isSymbolicLink() && (await isDir(confined.path.real)));
    const display = base.path.inside ? path.posix.join(base.path.display, entry.rel) : confined.path.display;
    matches.push({ ...confined.path, display, isDirectory });
  }
  matches.sort(byteOrder);
  return { ok: true, matches, refused, stopped };
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
