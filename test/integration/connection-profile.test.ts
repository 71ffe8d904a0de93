/**
 * `lev run` and `lev ps` in a namespace of their own, named by a temporal.toml profile and by
 * `--namespace` (docs/reference/operating.md#connection-settings): the run lives there, and the
 * default namespace never sees it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../../src/devserver/dev-server.js';
import { lev } from '../cli/lev-in-process.js';
import { connectClient, temporalAddress } from './helpers.js';
import { tempDir, writeBlueprint } from './run-helpers.js';

const NAMESPACE = `lev-profile-${process.pid}`;
/** `INDEXED_VALUE_TYPE_KEYWORD` in Temporal's API. */
const KEYWORD = 2;

describe('connection settings of lev', () => {
  let conn: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    conn = await connectClient();
    await conn.connection.workflowService.registerNamespace({
      namespace: NAMESPACE,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    // Leviath's search attributes, as a new namespace needs them (docs/reference/operating.md#connection-settings).
    await conn.connection.operatorService.addSearchAttributes({
      namespace: NAMESPACE,
      searchAttributes: Object.fromEntries(Object.keys(SEARCH_ATTRIBUTES).map((name) => [name, KEYWORD])),
    });
    // A new namespace reaches the server's caches within seconds; wait until it answers.
    for (const deadline = Date.now() + 30_000; ; ) {
      try {
        await conn.connection.workflowService.describeNamespace({ namespace: NAMESPACE });
        await conn.connection.workflowService.listWorkflowExecutions({ namespace: NAMESPACE });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`namespace ${NAMESPACE} never answered: ${String(err)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  afterAll(() => conn?.connection.close());

  it('runs in the namespace of a temporal.toml profile, and lists the run there', async () => {
    const home = tempDir('profile-home');
    const config = join(home, 'temporal.toml');
    writeFileSync(config, `[profile.team]\naddress = "${temporalAddress()}"\nnamespace = "${NAMESPACE}"\n`);
    const bp = writeBlueprint(
      `
[agent]
name = "profiled"
model = "scripted:script.toml"
[context.regions]
task         = { kind = "pinned", max_tokens = 500 }
conversation = { kind = "sliding_window", max_tokens = 4000 }
[stages.work]
`,
      { 'script.toml': '[[turns]]\ntext = "Done in the team namespace."\n' },
    );
    const env = {
      TEMPORAL_CONFIG_FILE: config,
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_NAMESPACE: undefined,
      LEVIATH_HOME: home,
      LEVIATH_BUNDLE: inject('workflowBundlePath'),
      LEVIATH_BLOB_DIR: join(home, 'blobs'),
    };
    const run = await lev(['run', bp.dir, '--task', 'say done', '--workdir', home, '--profile', 'team', '--json'], {
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { runId: string; output: { text: string } };
    expect(result.output.text).toContain('team namespace');

    // The default namespace, where the test's own client looks, never sees the run.
    await expect(conn.client.workflow.getHandle(result.runId).describe()).rejects.toThrow(WorkflowNotFoundError);

    const ps = await lev(['ps', '--profile', 'team', '--json'], { env });
    expect(ps.code, ps.stderr).toBe(0);
    expect(ps.stdout).toContain(result.runId);
    const psFlag = await lev(['ps', '--namespace', NAMESPACE, '--json'], {
      env: { ...env, TEMPORAL_CONFIG_FILE: undefined, TEMPORAL_ADDRESS: temporalAddress() },
    });
    expect(psFlag.code, psFlag.stderr).toBe(0);
    expect(psFlag.stdout).toContain(result.runId);
  });
});
