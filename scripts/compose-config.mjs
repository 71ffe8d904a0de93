#!/usr/bin/env node
// docker-compose.yml as Docker Compose reads it, without a Docker engine:
// deploy/compose-config is a small Go program around compose-go, the parser
// Compose itself is built on (schema, interpolation, profiles, defaults, the
// references between services, secrets and volumes). This script builds it
// once per go.mod, go.sum and source and caches the binary outside the clone,
// like scripts/temporal-server.mjs caches the server; the compose test
// (test/deploy/docker-compose.test.ts) loads the file through it.
//
//   node scripts/compose-config.mjs      build (or find) the binary, print its path
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goMinor } from './temporal-server.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MODULE_DIR = join(ROOT, 'deploy', 'compose-config');
const SOURCES = ['go.mod', 'go.sum', 'main.go'];
const GO_HELP =
  'The compose test loads docker-compose.yml with compose-go and needs Go 1.24 or newer on PATH: ' +
  'install Go from https://go.dev/dl/ or your distribution, then run `node scripts/compose-config.mjs`.';

/** `${XDG_CACHE_HOME:-~/.cache}/leviath/compose-config-<hash of the module's files>/compose-config`. */
export function composeConfigBinary(env = process.env) {
  const hash = createHash('sha256');
  for (const file of SOURCES) hash.update(readFileSync(join(MODULE_DIR, file)));
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(base, 'leviath', `compose-config-${hash.digest('hex').slice(0, 12)}`, 'compose-config');
}

/**
 * The binary, built when the cache lacks it (about a minute on a cold Go
 * cache, then nothing) into a temporary folder renamed into place, so an
 * interrupted or concurrent build never leaves half a cache.
 */
export function ensureComposeConfig({ env = process.env, log = () => {} } = {}) {
  const binary = composeConfigBinary(env);
  if (existsSync(binary)) return binary;
  const minor = goMinor(env);
  if (minor === undefined) throw new Error(`Go is not installed. ${GO_HELP}`);
  if (minor < 24) throw new Error(`The Go on PATH is older than 1.24. ${GO_HELP}`);
  const dir = dirname(binary);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  log(`building compose-config (compose-go) into ${dir} (once) ...`);
  const started = Date.now();
  const built = spawnSync('go', ['build', '-o', join(tmp, 'compose-config'), '.'], {
    cwd: MODULE_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
    // -mod=readonly: the committed go.sum covers every module; nothing is resolved anew here.
    env: { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' },
  });
  if (built.error || built.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go build of compose-config failed (status ${built.status}); see the output above. ${GO_HELP}`);
  }
  mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another build finished first; its binary is the same.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(binary)) throw err;
  }
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/**
 * The model Compose makes of `file` with these profiles and this environment
 * (nothing else of the caller's is read), or the loader's error as `error`.
 */
export function loadCompose(file, { profiles = [], env = {}, binary = ensureComposeConfig() } = {}) {
  const args = [...profiles.flatMap((p) => ['--profile', p]), file];
  const out = spawnSync(binary, args, { encoding: 'utf8', env });
  if (out.error) throw out.error;
  if (out.status !== 0) return { error: (out.stderr || out.stdout).trim() };
  return { model: JSON.parse(out.stdout) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${ensureComposeConfig({ log: (line) => process.stderr.write(`${line}\n`) })}\n`);
}
