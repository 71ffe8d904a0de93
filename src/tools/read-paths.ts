/**
 * `[read_paths]` (docs/reference/seeds.md#confinement): the only way a path tool or a seed
 * may read outside the run's working directory. The blueprint declares
 * entries; the user's config grants them. Reading needs both: a declared
 * entry that matches the real path and, unless the user set
 * `[security] allow_blueprint_read_paths = true`, a grant that matches it
 * too, so a grant never reaches beyond what the blueprint asked for.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { globSource, staticPrefix } from './glob-pattern.js';

export interface ReadPathPolicy {
  /** True when reading the canonical (symlink-free, absolute) path is granted. */
  allows(realPath: string): boolean;
  /** The declared entries in force, as written; empty when nothing outside is readable. */
  readonly active: readonly string[];
  /**
   * Canonical directories or files of the plain-path entries in force: what a
   * sandboxed command may read. `glob:` and `regex:` entries name no one
   * directory, so they reach file tools only.
   */
  readonly roots: readonly string[];
}

export const NO_READ_PATHS: ReadPathPolicy = Object.freeze({
  allows: () => false,
  active: Object.freeze([]) as readonly string[],
  roots: Object.freeze([]) as readonly string[],
});

export interface ReadPathGrants {
  /** `[agent_read_paths.<agent>] allow` in the user's config. */
  agentAllow?: string[];
  /** `[security] read_paths` in the user's config. */
  securityReadPaths?: string[];
  /** `[security] allow_blueprint_read_paths = true`. */
  allowBlueprintReadPaths?: boolean;
}

interface CompiledEntry {
  raw: string;
  /** Normalised spelling, so `~/x` and `/home/u/x` compare equal. */
  normal: string;
  /** The directory the entry is rooted at, when it has one. */
  base?: string;
  /** A plain path: the entry is exactly the subtree at `base`. */
  plain?: boolean;
  broad: boolean;
  match(realPath: string): boolean;
}

type Compiled = { ok: true; entry: CompiledEntry } | { ok: false; reason: string };

function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function expandHome(text: string, home: string): string {
  if (text === '~') return home;
  if (text.startsWith('~/')) return path.join(home, text.slice(2));
  return text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function withinSubtree(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
}

const BROAD_STARTS = ['**', '/.*', '/.+'];

function isBroad(body: string, resolved: string | undefined, home: string): boolean {
  const bare = body.replace(/^\^/, '');
  if (['~', '~/', '/', '/**'].includes(bare)) return true;
  if (BROAD_STARTS.some((s) => bare.startsWith(s))) return true;
  return resolved === '/' || resolved === home;
}

function compileEntry(raw: string, workdir: string, home: string): Compiled {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'the entry is empty' };
  if (text.includes('\0')) return { ok: false, reason: 'the entry contains a NUL byte' };

  if (text.startsWith('regex:')) {
    let body = text.slice('regex:'.length).trim();
    const broad = isBroad(body, undefined, home);
    body = body.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
    if (body.startsWith('~/')) body = `${escapeRegExp(home)}/${body.slice(2)}`;
    if (!body.startsWith('/') && !body.startsWith('\\/')) {
      return {
        ok: false,
        reason: 'a regex entry must match absolute paths (start with `/` or `~/`); relative regexes are refused',
      };
    }
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${body})$`);
    } catch (err) {
      return { ok: false, reason: `the regex does not compile (${(err as Error).message})` };
    }
    return { ok: true, entry: { raw, normal: `regex:${body}`, broad, match: (p) => re.test(p) } };
  }

  if (text.startsWith('glob:')) {
    const body = text.slice('glob:'.length).trim();
    if (body === '') return { ok: false, reason: 'the glob is empty' };
    const resolved = path.resolve(workdir, expandHome(body, home));
    const prefix = staticPrefix(resolved);
    const realPrefix = canonical(prefix);
    const sources = [globSource(resolved)];
    if (realPrefix !== prefix) sources.push(globSource(realPrefix + resolved.slice(prefix.length)));
    let res: RegExp[];
    try {
      res = sources.map((s) => new RegExp(`^${s}$`));
    } catch (err) {
      return { ok: false, reason: `the glob does not compile (${(err as Error).message})` };
    }
    return {
      ok: true,
      entry: {
        raw,
        normal: `glob:${resolved}`,
        base: realPrefix,
        broad: isBroad(body, prefix === resolved ? resolved : undefined, home),
        match: (p) => res.some((re) => re.test(p)),
      },
    };
  }

  const resolved = path.resolve(workdir, expandHome(text, home));
  const real = canonical(resolved);
  return {
    ok: true,
    entry: {
      raw,
      normal: resolved,
      base: real,
      plain: true,
      broad: isBroad(text, resolved, home),
      match: (p) => withinSubtree(real, p) || withinSubtree(resolved, p),
    },
  };
}

function grantCovers(grant: CompiledEntry, declared: CompiledEntry): boolean {
  if (grant.normal === declared.normal) return true;
  return declared.base !== undefined && grant.match(declared.base);
}

export function compileReadPaths(
  declared: string[],
  grants: ReadPathGrants,
  workdir: string,
  home: string,
): { policy: ReadPathPolicy; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const declaredEntries: { index: number; entry: CompiledEntry }[] = [];
  declared.forEach((raw, index) => {
    const compiled = compileEntry(raw, workdir, home);
    if (!compiled.ok) {
      diagnostics.push({
        code: 'read-paths-entry-invalid',
        severity: 'warning',
        message: `[read_paths] entry \`${raw}\` is ignored: ${compiled.reason}. Write an absolute path, a \`glob:\` pattern or an absolute \`regex:\`.`,
        path: `read_paths.allow[${index}]`,
      });
      return;
    }
    declaredEntries.push({ index, entry: compiled.entry });
  });

  const grantSources: [string, string[] | undefined][] = [
    ['agent_read_paths.allow', grants.agentAllow],
    ['security.read_paths', grants.securityReadPaths],
  ];
  const grantEntries: CompiledEntry[] = [];
  for (const [where, list] of grantSources) {
    (list ?? []).forEach((raw, index) => {
      const compiled =
        typeof raw === 'string'
          ? compileEntry(raw, workdir, home)
          : ({ ok: false, reason: 'it is not a string' } as const);
      if (!compiled.ok) {
        diagnostics.push({
          code: 'read-paths-grant-invalid',
          severity: 'warning',
          message: `Your read-path grant \`${String(raw)}\` (${where}) is ignored: ${compiled.reason}. Fix it in your config.`,
          path: `${where}[${index}]`,
        });
        return;
      }
      grantEntries.push(compiled.entry);
    });
  }

  for (const { index, entry } of declaredEntries) {
    if (entry.broad) {
      diagnostics.push({
        code: 'broad-read-path',
        severity: 'warning',
        message: `[read_paths] entry \`${entry.raw}\` reaches very far (a home directory, a filesystem root or everything); narrow it to the directories the agent needs.`,
        path: `read_paths.allow[${index}]`,
      });
    }
  }
  for (const entry of grantEntries) {
    if (entry.broad) {
      diagnostics.push({
        code: 'broad-read-path',
        severity: 'warning',
        message: `Your read-path grant \`${entry.raw}\` reaches very far (a home directory, a filesystem root or everything); narrow it in your config.`,
      });
    }
  }

  const allowAll = grants.allowBlueprintReadPaths === true;
  const active = declaredEntries.filter(({ entry }) => allowAll || grantEntries.some((g) => grantCovers(g, entry)));
  if (declared.length > 0) {
    diagnostics.push({
      code: 'read-paths-declared',
      severity: 'note',
      message: `[read_paths] declares ${declared.length} entr${declared.length === 1 ? 'y' : 'ies'}; ${active.length} granted by your config.`,
      path: 'read_paths.allow',
    });
  }
  for (const { index, entry } of declaredEntries) {
    if (active.some((a) => a.entry === entry)) continue;
    diagnostics.push({
      code: 'read-paths-not-granted',
      severity: 'warning',
      message: `[read_paths] entry \`${entry.raw}\` is not granted, so the agent cannot read it; grant it in your config with \`[agent_read_paths.<agent>] allow = ["${entry.raw}"]\` or \`[security] read_paths\`, or set \`[security] allow_blueprint_read_paths = true\`.`,
      path: `read_paths.allow[${index}]`,
    });
  }

  const activeEntries = active.map((a) => a.entry);
  const policy: ReadPathPolicy = {
    active: Object.freeze(activeEntries.map((e) => e.raw)),
    roots: Object.freeze(activeEntries.flatMap((e) => (e.plain && e.base ? [e.base] : []))),
    allows(realPath: string): boolean {
      if (typeof realPath !== 'string' || !path.isAbsolute(realPath)) return false;
      if (path.normalize(realPath) !== realPath || realPath.includes('\0')) return false;
      if (!activeEntries.some((e) => e.match(realPath))) return false;
      return allowAll || grantEntries.some((g) => g.match(realPath));
    },
  };
  return { policy, diagnostics };
}
