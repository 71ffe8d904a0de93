/** `lev blobs gc`: deletes blobs of the shared Postgres store that no open or retained run references. */
import type { Command } from 'commander';
import { LevError } from '../../errors.js';
import { serverOptions } from '../options.js';

interface GcFlags {
  olderThan: string;
  dryRun?: boolean;
  json?: boolean;
  address: string;
  namespace: string;
  profile?: string;
}

export function registerBlobs(program: Command): void {
  const blobs = program.command('blobs').description('Maintain the blob store (LEVIATH_BLOBS or [runtime] blobs).');
  serverOptions(blobs.command('gc'))
    .description(
      'Delete blobs older than --older-than that no run Temporal still knows (open, or closed within retention) references.',
    )
    .option('--older-than <age>', 'only blobs stored longer ago than this (s, m, h, d or w)', '30d')
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option('--json', 'print the report as JSON')
    .action(async (flags: GcFlags) => {
      const { collectBlobs, parseAge, parseBlobSpec, PostgresBlobStore } = await import('../../blobs/index.js');
      const { configuredBlobs, defaultRuntimeConfig } = await import('../../runtime/node/run-store.js');
      const olderThanMs = parseAge(flags.olderThan);
      const spec = parseBlobSpec(configuredBlobs(), defaultRuntimeConfig().blobDir);
      if (spec.kind !== 'postgres')
        throw new LevError(
          'blobs-gc-needs-postgres',
          `The blob store is the local folder ${spec.dir}, which keeps no run references; set LEVIATH_BLOBS to the postgres:// store to collect, or delete the folder once no run needs it.`,
        );
      const { Client, Connection } = await import('@temporalio/client');
      const { knownRuns } = await import('../../worker/run-client.js');
      const { connectOptions, serverSettings } = await import('../../worker/connection.js');
      const { codecOption } = await import('../../codec/payload-codec.js');
      const { probeServer } = await import('../../worker/server-probe.js');
      const settings = serverSettings(flags);
      // gc asks the server which runs are still open or retained; a server it cannot ask is one coded line.
      await probeServer(settings);
      const connection = await Connection.connect(connectOptions(settings)).catch((err: Error) => {
        throw new LevError(
          'server-unreachable',
          `No Temporal server answers at ${flags.address} (${err.message}); gc asks it which runs are still open or retained, so pass --address for one that runs.`,
        );
      });
      const store = new PostgresBlobStore(spec.url, { poolSize: 2 });
      try {
        const client = new Client({ connection, namespace: flags.namespace, ...codecOption() });
        const report = await collectBlobs(store, {
          olderThanMs,
          knownRuns: (ids) => knownRuns(client, ids),
          ...(flags.dryRun ? { dryRun: true } : {}),
        });
        if (flags.json) process.stdout.write(`${JSON.stringify(report)}\n`);
        else
          process.stdout.write(
            `${report.dryRun ? 'would delete' : 'deleted'} ${report.blobsDeleted} blobs (${report.bytesDeleted} bytes) older than ${flags.olderThan}; ` +
              `${report.runsChecked} runs checked, ${report.runsForgotten} no longer known to Temporal; ${report.blobsKept} blobs kept\n`,
          );
      } finally {
        await store.close();
        await connection.close();
      }
    });
}
