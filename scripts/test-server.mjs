#!/usr/bin/env node
// Temporal's time-skipping test server: the Java one published to Maven Central
// (io.temporal:temporal-test-server, main class io.temporal.testserver.TestServer),
// fetched with its dependencies by Maven into a cache outside the clone and run
// with the machine's Java. The integration tests whose workflows wait only on
// timers hand the wrapper this writes to `TestWorkflowEnvironment.createTimeSkipping`
// as an existing executable (CONTRIBUTING.md#tests-that-wait). Plain JavaScript,
// like the other scripts, so it runs before anything is compiled.
//
//   node scripts/test-server.mjs      fetch (or find) the server, print the wrapper's path
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userDirs } from '../src/state/user-dirs.mjs';

/** The release of Temporal's Java SDK whose test server the tests run. */
export const TEST_SERVER_VERSION = '1.38.0';
/** The Maven plugin that copies the server's jars, pinned so a fetch is the same everywhere. */
const COPY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies';

const HELP =
  "The time-skipping tests run Temporal's Java test server, which needs Java 17 or newer and Maven on PATH " +
  '(Debian: apt-get install default-jre-headless maven), then `node scripts/test-server.mjs` (CONTRIBUTING.md#set-up-and-checks).';

/** `temporal-test-server-<version>` in Leviath's cache (`${XDG_CACHE_HOME:-~/.cache}/leviath`, src/state/user-dirs.mjs). */
export function testServerDir(env = process.env) {
  return join(userDirs(env).cache, `temporal-test-server-${TEST_SERVER_VERSION}`);
}

/** The wrapper the SDK starts as `<wrapper> <port> --enable-time-skipping`. */
function wrapperIn(dir) {
  return join(dir, 'temporal-test-server');
}

/**
 * The SDK gives the server it starts five seconds to answer, which the JVM
 * can miss on a loaded two-core machine: with only the first compiler tier
 * and the serial collector it starts in about half the time (2 s instead of
 * 4 s at load 11). The jars are found next to the wrapper, wherever the cache is.
 */
const WRAPPER =
  '#!/bin/sh\nexec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"\n';

/** Writes the wrapper unless it is already this one, so a cache made by an earlier version of this script gets today's. */
function writeWrapper(dir) {
  const path = wrapperIn(dir);
  if (existsSync(path) && readFileSync(path, 'utf8') === WRAPPER) return path;
  // Renamed into place, so a lane starting the server meanwhile runs the old wrapper or the new one, never half of one.
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, WRAPPER);
  chmodSync(tmp, 0o755);
  renameSync(tmp, path);
  return path;
}

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.leviath</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${TEST_SERVER_VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;

function has(command, args) {
  const out = spawnSync(command, args, { encoding: 'utf8' });
  return !out.error && out.status === 0;
}

/**
 * The wrapper's path, fetching the server's jars first when the cache lacks
 * them (seconds, once per version) into a temporary folder renamed into
 * place, so an interrupted or concurrent fetch never leaves half a cache.
 * Throws with what to install when Java or Maven is missing.
 */
export function ensureTestServer({ env = process.env, log = () => {} } = {}) {
  const dir = testServerDir(env);
  if (existsSync(join(dir, 'lib'))) return writeWrapper(dir);
  if (!has('java', ['-version'])) throw new Error(`Java is not installed. ${HELP}`);
  if (!has('mvn', ['-v'])) throw new Error(`Maven is not installed. ${HELP}`);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'pom.xml'), POM);
  log(`fetching Temporal's test server ${TEST_SERVER_VERSION} from Maven Central into ${dir} (once) ...`);
  const fetched = spawnSync(
    'mvn',
    ['-q', '-B', '-Dstyle.color=never', COPY_PLUGIN, '-DoutputDirectory=lib', '-DincludeScope=runtime'],
    {
      cwd: tmp,
      stdio: ['ignore', 'inherit', 'inherit'],
      env,
    },
  );
  if (fetched.error || fetched.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`Maven could not fetch the test server (status ${fetched.status}); see the output above. ${HELP}`);
  }
  writeWrapper(tmp);
  mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another fetch finished first; its jars are the same.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(dir, 'lib'))) throw err;
  }
  return wrapperIn(dir);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${ensureTestServer({ log: (line) => process.stderr.write(`${line}\n`) })}\n`);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
