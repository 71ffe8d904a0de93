/**
 * The package as a user gets it: packed from a copy of the checkout (so the pack's prepack builds
 * there and never replaces the dist/ other test files run), then installed into a folder outside
 * the checkout, offline, from the tarball and the npm cache.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  [field: string]: unknown;
}

interface PackageLock {
  packages: Record<string, LockEntry>;
  [field: string]: unknown;
}

/** `npm pack` of the checkout as it is (edits not yet committed included) into `dest`; returns the tarball's path. */
export function packCheckout(dest: string): string {
  const copy = join(dest, 'checkout');
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of tracked.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(copy, file));
    } catch (err) {
      // A file deleted but not yet staged is listed and absent: the pack would not hold it either.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: copy,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The prepack's build writes its progress before npm's JSON.
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as [{ filename: string }];
  return join(dest, packed.filename);
}

/**
 * The lockfile of a project that depends on nothing but the tarball: the package's own entry and
 * the checkout's locked runtime dependencies (its devDependencies left out), so `npm ci --offline`
 * needs no registry metadata, only tarballs the npm cache holds since the checkout's `npm ci`.
 */
export function installedLock(checkoutLock: PackageLock, tarball: string, tarballBytes: Buffer): PackageLock {
  const own = checkoutLock.packages[''] as LockEntry;
  const spec = `file:${tarball}`;
  const packages: Record<string, LockEntry> = {
    '': { name: 'installed-leviath', dependencies: { [own.name as string]: spec } },
    [`node_modules/${own.name}`]: {
      version: own.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(tarballBytes).digest('base64')}`,
      license: own.license,
      dependencies: own.dependencies,
      ...(own.optionalDependencies ? { optionalDependencies: own.optionalDependencies } : {}),
      bin: own.bin,
      engines: own.engines,
    },
  };
  for (const [path, entry] of Object.entries(checkoutLock.packages))
    if (path !== '' && !entry.dev) packages[path] = entry;
  return { name: 'installed-leviath', lockfileVersion: 3, requires: true, packages };
}

/** Installs the tarball into `dir` as a user's project would, offline; returns npm's output. */
export function installOffline(dir: string, tarballPath: string): string {
  const tarball = tarballPath.split('/').at(-1) as string;
  cpSync(tarballPath, join(dir, tarball));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as PackageLock;
  const own = lock.packages[''] as LockEntry;
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'installed-leviath', private: true, type: 'module', dependencies: { [own.name as string]: `file:${tarball}` } }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify(installedLock(lock, tarball, readFileSync(tarballPath)), null, 2)}\n`,
  );
  const out = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`npm ci --offline failed in ${dir}:\n${out.stdout}\n${out.stderr}`);
  return `${out.stdout}${out.stderr}`;
}
