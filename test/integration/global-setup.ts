/**
 * What the integration files share, made once for the whole run: a real
 * Temporal dev server per lane (integration files run `LANES` at a time, see
 * vitest.config.ts), each on free ports with a throwaway SQLite file; the
 * workflow bundle. The integration and replay projects both name this file; the
 * second setup finds the first one's servers (vitest runs both in this
 * process) and the last teardown stops them.
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

interface Shared {
  tmp: string;
  servers: DevServer[];
  provided: {
    temporalAddresses: string[];
    temporalCli: string;
    workflowBundlePath: string;
    integrationTmp: string;
  };
  users: number;
}

const KEY = Symbol.for('leviath.integration-setup');
const store = globalThis as { [KEY]?: Promise<Shared> };

async function start(): Promise<Shared> {
  const tmp = mkdtempSync(join(tmpdir(), 'leviath-it-'));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cli = await findTemporalCli({ install: true, log });
  const servers = await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      const [port, uiPort] = [await freePort(), await freePort()];
      return startDevServer({
        cli,
        dbFile: join(tmp, `temporal-${lane + 1}.sqlite`),
        port,
        uiPort,
        headless: true,
        logFile: join(tmp, `server-${lane + 1}.log`),
      });
    }),
  );
  const bundle = await bundleWorkflows();
  const workflowBundlePath = join(tmp, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, bundle.code);
  return {
    tmp,
    servers,
    provided: {
      temporalAddresses: servers.map((s) => s.address),
      temporalCli: cli,
      workflowBundlePath,
      integrationTmp: tmp,
    },
    users: 0,
  };
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  store[KEY] ??= start();
  const shared = await store[KEY];
  shared.users++;
  for (const [key, value] of Object.entries(shared.provided))
    project.provide(key as keyof Shared['provided'], value as never);
  return async () => {
    if (--shared.users > 0) return;
    delete store[KEY];
    await Promise.all(shared.servers.map((s) => s.stop()));
    rmSync(shared.tmp, { recursive: true, force: true });
  };
}
