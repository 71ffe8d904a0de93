#!/usr/bin/env node
// The compiled build `lev` runs: the CLI bundled by esbuild into dist/lev.mjs
// (its commands split into chunks loaded when used, most npm packages left to
// node_modules), plus the workflow bundle prebuilt, so neither the CLI nor a
// worker compiles anything at start. The library (`import 'leviath'`,
// docs/library.md) is dist/index.mjs, sharing those chunks, with its type
// declarations in dist/types/. `dist/build-stamp.json` records what was built;
// `buildState()` compares it with the sources, so a stale build is never
// used: `bin/lev.mjs` runs the sources through tsx instead and says so, and
// `scripts/setup.mjs` (the first step of `npm test` and `npm run demo`)
// rebuilds. Plain JavaScript: it runs before anything is compiled.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, 'build-stamp.json');
const SOURCE_DIRS = ['src', 'workflows', 'activities'];
/** Files whose change changes the build besides the sources. */
const BUILD_INPUTS = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    // Plain .mjs sources too (src/state/user-dirs.mjs, shared with the scripts): the build bundles them;
    // and lev serve's page (.html, .js, .css), which it copies.
    else if (/\.(ts|mjs|js|html|css)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function inputs(root) {
  const files = SOURCE_DIRS.flatMap((d) => sourceFiles(join(root, d)));
  return { files, all: [...files, ...BUILD_INPUTS.map((f) => join(root, f))] };
}

/**
 * `fresh` when dist/ holds a build of exactly today's sources: the same
 * files, none changed since. Otherwise the reason, for the notice.
 */
export function buildState(root = ROOT) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', 'build-stamp.json'), 'utf8'));
  } catch {
    return { fresh: false, reason: 'there is no compiled build in dist/' };
  }
  const { files, all } = inputs(root);
  const names = files.map((f) => relative(root, f)).sort();
  if (names.join('\n') !== stamp.files.join('\n'))
    return { fresh: false, reason: 'source files were added or removed' };
  for (const file of all) {
    if (statSync(file).mtimeMs > stamp.builtAt)
      return { fresh: false, reason: `${relative(root, file)} changed after the build` };
  }
  return { fresh: true };
}

/**
 * npm packages `lev validate` loads, bundled into the build: each is dozens of ES modules that
 * Node would find, read and link one by one at every start (zod alone was about a quarter of
 * `lev validate`'s CPU). They are plain ES modules; every other package stays in node_modules.
 */
const BUNDLED_PACKAGES = new Set(['zod', 'smol-toml', 're2js']);

const npmPackagesOutside = {
  name: 'npm-packages-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
      return BUNDLED_PACKAGES.has(name) ? undefined : { path, external: true };
    });
  },
};

/**
 * The library's type declarations (docs/library.md), for what `src/library/index.ts` reaches
 * (tsconfig.build.json), into dist/types/. `--noCheck` leaves type checking to `npm run
 * typecheck`, which halves the time; it runs beside esbuild and the workflow bundler.
 */
function declarations() {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const child = spawn(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`type declarations failed (tsc exit ${code}):\n${out}`)),
    );
  });
}

/** Transpiles the sources, emits the library's declarations and prebuilds the workflow bundle; returns the time it took in ms. */
export async function build() {
  const started = Date.now();
  const { files } = inputs(ROOT);
  const { build: esbuild } = await import('esbuild');
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  const types = declarations();
  // Awaited below; a failure that comes first must not be an unhandled rejection meanwhile.
  types.catch(() => {});
  await esbuild({
    entryPoints: {
      lev: join(ROOT, 'src', 'cli', 'main.ts'),
      worker: join(ROOT, 'src', 'worker', 'create-worker.ts'),
      index: join(ROOT, 'src', 'library', 'index.ts'),
    },
    outdir: DIST,
    bundle: true,
    splitting: true,
    plugins: [npmPackagesOutside],
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // The workflow bundle is made by the same function a worker uses when it has none prebuilt.
  const { bundleWorkflows } = await import(pathToFileURL(join(DIST, 'worker.mjs')).href);
  const { code } = await bundleWorkflows();
  writeFileSync(join(DIST, 'workflow-bundle.js'), code);
  // lev serve's page is plain files, served from here by the compiled build (src/cli/serve/http-server.ts).
  cpSync(join(ROOT, 'src', 'cli', 'serve', 'page'), join(DIST, 'page'), { recursive: true });
  await types;
  const names = files.map((f) => relative(ROOT, f)).sort();
  // The stamp is the build's start, so a source saved while it ran counts as newer.
  writeFileSync(STAMP, `${JSON.stringify({ builtAt: started, files: names })}\n`);
  return Date.now() - started;
}

/** Builds when the build is missing or stale; says so on stderr unless `quiet`. */
export async function ensureBuild({ quiet = false } = {}) {
  const state = buildState();
  if (state.fresh) return false;
  if (!quiet) process.stderr.write(`setup: building dist/ (${state.reason}) ...\n`);
  const ms = await build();
  if (!quiet) process.stderr.write(`setup: built dist/ in ${(ms / 1000).toFixed(1)} s\n`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const ms = await build();
  process.stderr.write(`built dist/ in ${(ms / 1000).toFixed(1)} s\n`);
}
