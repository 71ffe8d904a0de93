/**
 * Path confinement for every path tool and file seed (docs/reference/seeds.md#confinement). A path
 * is resolved against the workdir, its deepest existing ancestor is
 * canonicalised (dangling links are followed by hand), and the result must
 * lie inside the canonical workdir, or, for reads only, be granted by
 * `[read_paths]`. This check only chooses what to open: file tools then
 * open the returned real path once and confine the opened descriptor
 * again (`open-once.ts`), so a link swapped in between cannot redirect them.
 */

import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RuntimeCode } from '../error-codes.js';
import type { ReadPathPolicy } from './read-paths.js';

export type Access = 'read' | 'write';

export interface ConfinedPath {
  /** Canonical absolute path to operate on. */
  real: string;
  /** Workdir-relative (`/`-separated) when inside, else the real path. */
  display: string;
  inside: boolean;
  /** False when the path (or its tail) does not exist yet. */
  exists: boolean;
}

export type ConfineResult = { ok: true; path: ConfinedPath } | { ok: false; code: RuntimeCode; message: string };

export interface ConfineOptions {
  workdir: string;
  readPolicy: ReadPathPolicy;
  /** Defaults to the process's home directory. */
  home?: string;
}

const MAX_PATH_BYTES = 4096;
const MAX_COMPONENT_BYTES = 255;
const MAX_LINK_HOPS = 40;

const GRANT_HINT =
  "to let the agent read it, list it in the blueprint's `[read_paths] allow` and grant it in your config (`[agent_read_paths.<agent>] allow`, `[security] read_paths`, or `[security] allow_blueprint_read_paths = true`)";

type RealResult = { ok: true; real: string; exists: boolean } | { ok: false; reason: 'loop' };

function resolveReal(abs: string, hops: number): RealResult {
  let current = abs;
  const rest: string[] = [];
  for (;;) {
    let isLink = false;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return { ok: true, real: path.join(current, ...rest), exists: false };
      rest.unshift(path.basename(current));
      current = parent;
      continue;
    }
    try {
      const real = realpathSync(current);
      return { ok: true, real: path.join(real, ...rest), exists: rest.length === 0 };
    } catch {
      if (!isLink || hops >= MAX_LINK_HOPS) return { ok: false, reason: 'loop' };
      let link: string;
      try {
        link = readlinkSync(current);
      } catch {
        return { ok: false, reason: 'loop' };
      }
      const target = path.resolve(path.dirname(current), link);
      return resolveReal(path.join(target, ...rest), hops + 1);
    }
  }
}

export function isWithin(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Canonical form of the workdir; the workdir itself must exist. */
export async function canonicalWorkdir(workdir: string): Promise<string> {
  return realpathSync(path.resolve(workdir));
}

function checkSpelling(input: string): { code: RuntimeCode; message: string } | undefined {
  if (input.includes('\0')) {
    return { code: 'path-invalid', message: 'The path contains a NUL byte; pass a plain file path.' };
  }
  const bytes = Buffer.byteLength(input);
  if (bytes > MAX_PATH_BYTES) {
    return {
      code: 'path-too-long',
      message: `The path is ${bytes} bytes long, over the ${MAX_PATH_BYTES}-byte limit; use a shorter path.`,
    };
  }
  const longPart = input.split(/[\\/]/).find((part) => Buffer.byteLength(part) > MAX_COMPONENT_BYTES);
  if (longPart !== undefined) {
    return {
      code: 'path-too-long',
      message: `A path component is ${Buffer.byteLength(longPart)} bytes long, over the ${MAX_COMPONENT_BYTES}-byte limit; use a shorter name.`,
    };
  }
  return undefined;
}

export async function confinePath(input: string, access: Access, opts: ConfineOptions): Promise<ConfineResult> {
  return confinePathSync(input, access, opts);
}

/**
 * The same check without awaiting, for spawn-time preflight. Only metadata
 * calls (lstat, readlink, realpath) are made; no file content is read.
 */
export function confinePathSync(input: string, access: Access, opts: ConfineOptions): ConfineResult {
  const bad = checkSpelling(input);
  if (bad) return { ok: false, ...bad };
  const home = opts.home ?? os.homedir();
  const tilde = input === '~' || input.startsWith('~/');
  const expanded = input === '~' ? home : input.startsWith('~/') ? path.join(home, input.slice(2)) : input;

  let root: string;
  try {
    root = realpathSync(path.resolve(opts.workdir));
  } catch {
    return {
      ok: false,
      code: 'workdir-missing',
      message: `The working directory ${opts.workdir} does not exist; create it or run from an existing directory.`,
    };
  }
  const lexical = path.resolve(root, expanded);
  const resolved = resolveReal(lexical, 0);
  if (!resolved.ok) {
    return {
      ok: false,
      code: 'path-symlink-loop',
      message: `\`${input}\` goes through a symbolic link that loops or cannot be resolved; use a path without it.`,
    };
  }
  const real = resolved.real;
  if (isWithin(root, real)) {
    const rel = path.relative(root, real).split(path.sep).join('/');
    return { ok: true, path: { real, display: rel === '' ? '.' : rel, inside: true, exists: resolved.exists } };
  }

  const how = tilde
    ? ' (`~` is your home directory)'
    : isWithin(root, lexical)
      ? ' (a symbolic link on the way points outside)'
      : '';
  if (access === 'read' && opts.readPolicy.allows(real)) {
    return { ok: true, path: { real, display: real, inside: false, exists: resolved.exists } };
  }
  if (access === 'write') {
    return {
      ok: false,
      code: 'path-outside-workdir',
      message: `\`${input}\` resolves to ${real}${how}, outside the working directory ${root}; writes never leave the workdir, and \`[read_paths]\` grants reading only. Write inside the workdir instead.`,
    };
  }
  return {
    ok: false,
    code: 'path-outside-workdir',
    message: `\`${input}\` resolves to ${real}${how}, outside the working directory ${root}; path tools stay inside the workdir, so ${GRANT_HINT}.`,
  };
}
