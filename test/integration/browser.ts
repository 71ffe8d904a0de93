/**
 * A real Chromium for the Web UI test: Debian's `chromium` package, driven
 * with playwright-core (which never downloads a browser). When the binary
 * is missing and the tests run as root on Debian, it is installed with
 * apt-get, as `.ci/run` does; otherwise the test fails saying how to get it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/state/project-root.js';

/** Where the screenshots of the Web UI test go (the closing note of issue 12 lists them). */
export const SCREENSHOTS = join(PROJECT_ROOT, '.leviath', 'screenshots');

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The Chromium binary: `LEVIATH_CHROMIUM`, else Debian's, installed first when it is missing and we may. */
export function chromiumBinary(): string {
  const given = process.env.LEVIATH_CHROMIUM;
  if (given) {
    if (!existsSync(given)) throw new Error(`LEVIATH_CHROMIUM names ${given}, which does not exist.`);
    return given;
  }
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (userInfo().uid === 0 && existsSync('/usr/bin/apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
      execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'ignore', env });
    } catch (err) {
      throw new Error(
        `Chromium is missing and \`apt-get install -y chromium\` failed (${(err as Error).message}); install Debian's chromium package, or point LEVIATH_CHROMIUM at a Chromium binary.`,
      );
    }
    if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  }
  throw new Error(
    `Chromium is not installed at ${DEBIAN_CHROMIUM}: run \`apt-get install -y chromium\` (Debian, as root), or point LEVIATH_CHROMIUM at a Chromium binary. The Web UI test needs a real browser and is not skipped.`,
  );
}

/** A headless Chromium with a fresh profile, nothing fetched in the background. */
export async function launchChromium(): Promise<BrowserContext> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'leviath-chromium-')), {
    executablePath: chromiumBinary(),
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
