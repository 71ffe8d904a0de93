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
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The release of Temporal's Java SDK whose test server the tests run. */
export const TEST_SERVER_VERSION = '1.38.0';
/** The Maven plugin that copies the server's jars, pinned so a fetch is the same everywhere. */
const COPY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies';

const HELP =
  "The time-skipping tests run Temporal's Java test server, which needs Java 17 or newer and Maven on PATH " +
  '(Debian: apt-get install default-jre-headless maven), then `node scripts/test-server.mjs` (CONTRIBUTING.md#set-up-and-checks).';

/** `${XDG_CACHE_HOME:-~/.cache}/leviath/temporal-test-server-<version>`. */
export function testServerDir(env = process.env) {
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(base, 'leviath', `temporal-test-server-${TEST_SERVER_VERSION}`);
}

/** The wrapper the SDK starts as `<wrapper> <port> --enable-time-skipping`. */
function wrapperIn(dir) {
  return join(dir, 'temporal-test-server');
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
  if (existsSync(wrapperIn(dir))) return wrapperIn(dir);
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
  // The jars are found next to the wrapper, wherever the cache is.
  writeFileSync(
    wrapperIn(tmp),
    '#!/bin/sh\nexec java -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"\n',
  );
  chmodSync(wrapperIn(tmp), 0o755);
  mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    // Another fetch finished first; its jars are the same.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(wrapperIn(dir))) throw err;
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
