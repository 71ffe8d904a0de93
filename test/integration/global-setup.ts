/**
 * What the integration files share, made once for the whole run: a real
 * Temporal dev server per lane (integration files run `LANES` at a time, see
 * vitest.config.ts), each on free ports with a throwaway SQLite file, and the
 * workflow bundle built once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../src/devserver/dev-server.js';
import { freePort } from '../../src/devserver/net.js';
import { findTemporalCli } from '../../src/devserver/temporal-cli.js';
import { bundleWorkflows } from '../../src/worker/create-worker.js';
import { LANES } from './lanes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One dev server per lane; `temporalAddress()` (helpers.ts) picks the file's. */
    temporalAddresses: string[];
    temporalCli: string;
    workflowBundlePath: string;
    integrationTmp: string;
  }
}

let servers: DevServer[] = [];
let tmp: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  tmp = mkdtempSync(join(tmpdir(), 'leviath-it-'));
  const dir = tmp;
  const cli = await findTemporalCli({ install: true, log: (line) => process.stderr.write(`${line}\n`) });
  servers = await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      const [port, uiPort] = [await freePort(), await freePort()];
      return startDevServer({
        cli,
        dbFile: join(dir, `temporal-${lane + 1}.sqlite`),
        port,
        uiPort,
        headless: true,
        logFile: join(dir, `server-${lane + 1}.log`),
      });
    }),
  );
  const bundle = await bundleWorkflows();
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide(
    'temporalAddresses',
    servers.map((s) => s.address),
  );
  project.provide('temporalCli', cli);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('integrationTmp', dir);
}

export async function teardown(): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
