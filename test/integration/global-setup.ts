/**
 * One real Temporal dev server for the whole integration run, on free
 * ports with a throwaway SQLite file, plus the workflow bundle built once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../../src/devserver/dev-server.js';
import { freePort } from '../../src/devserver/net.js';
import { findTemporalCli } from '../../src/devserver/temporal-cli.js';
import { bundleWorkflows } from '../../src/worker/create-worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCli: string;
    workflowBundlePath: string;
    integrationTmp: string;
  }
}

let server: DevServer | undefined;
let tmp: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  tmp = mkdtempSync(join(tmpdir(), 'leviath-it-'));
  const cli = await findTemporalCli({ install: true, log: (line) => process.stderr.write(`${line}\n`) });
  const [port, uiPort] = [await freePort(), await freePort()];
  server = await startDevServer({
    cli,
    dbFile: join(tmp, 'temporal.sqlite'),
    port,
    uiPort,
    headless: true,
    logFile: join(tmp, 'server.log'),
  });
  const bundle = await bundleWorkflows();
  const bundlePath = join(tmp, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('temporalCli', cli);
  project.provide('workflowBundlePath', bundlePath);
  project.provide('integrationTmp', tmp);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
