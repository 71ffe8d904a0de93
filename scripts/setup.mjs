#!/usr/bin/env node
// First step of `npm run demo` and `npm test`: installs what a fresh clone
// lacks, so those two commands are the whole set-up. Plain JavaScript,
// because it runs before the dependencies (and tsx) exist.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const installedLock = join(root, 'node_modules', '.package-lock.json');

function dependenciesCurrent() {
  if (!existsSync(installedLock)) return false;
  // npm rewrites node_modules/.package-lock.json on every install; an older
  // one means package-lock.json changed since (a pull, a branch switch).
  return statSync(installedLock).mtimeMs >= statSync(lock).mtimeMs;
}

if (!dependenciesCurrent()) {
  process.stderr.write('setup: installing dependencies (npm ci) ...\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('setup: npm ci failed; see the output above.\n');
    process.exit(result.status ?? 1);
  }
}

const { register } = await import('tsx/esm/api');
register();
const { findTemporalCli } = await import('../src/devserver/temporal-cli.ts');
try {
  const cli = await findTemporalCli({ log: (line) => process.stderr.write(`setup: ${line}\n`) });
  if (!process.env.LEVIATH_SETUP_QUIET) process.stderr.write(`setup: Temporal CLI at ${cli}\n`);
} catch (err) {
  process.stderr.write(`setup: error [${err.code ?? 'setup-failed'}] ${err.message}\n`);
  process.exit(1);
}

// The compiled build `lev` starts from (scripts/build.mjs); rebuilt only when the sources changed.
const { ensureBuild } = await import('./build.mjs');
await ensureBuild({ quiet: Boolean(process.env.LEVIATH_SETUP_QUIET) });
