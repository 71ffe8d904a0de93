/**
 * Worker Versioning (docs/reference/operating.md#safe-deploys). Given a deployment name
 * (`lev worker --deployment`, else `LEVIATH_DEPLOYMENT`), a worker joins that Worker Deployment
 * as one version, whose build id is Leviath's version unless `--build-id` or `LEVIATH_BUILD_ID`
 * names another; each run then stays on the version it started on (pinned) until it continues
 * as new, and moves to the deployment's current version there. Without a name workers are
 * unversioned, as before.
 */
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { LevError } from '../errors.js';
import { LEVIATH_VERSION } from '../version.js';

export interface DeploymentChoice {
  /** The Worker Deployment's name; `LEVIATH_DEPLOYMENT` when unset; `''` for an unversioned worker whatever the environment says. */
  deployment?: string;
  /** The version's build id; `LEVIATH_BUILD_ID`, else Leviath's version. */
  buildId?: string;
}

/** The version a worker serves, or undefined for an unversioned worker. */
export function workerDeployment(
  choice: DeploymentChoice = {},
  env: NodeJS.ProcessEnv = process.env,
): WorkerDeploymentVersion | undefined {
  const name = (choice.deployment ?? env.LEVIATH_DEPLOYMENT)?.trim();
  const buildId = (choice.buildId ?? env.LEVIATH_BUILD_ID)?.trim();
  if (!name) {
    if (choice.buildId !== undefined)
      throw new LevError(
        'deployment-bad',
        `--build-id ${choice.buildId} names a version of no deployment; add --deployment NAME (or set LEVIATH_DEPLOYMENT), or drop --build-id.`,
      );
    return undefined;
  }
  // Temporal joins the two as `<deployment>.<build id>`, so the name may not hold a dot; the build id may.
  if (name.includes('.'))
    throw new LevError(
      'deployment-bad',
      `The deployment name "${name}" holds a ".", which Temporal refuses in a Worker Deployment's name; use a name without one, such as "${name.replaceAll('.', '-')}".`,
    );
  return { deploymentName: name, buildId: buildId || LEVIATH_VERSION };
}

/** A versioned worker's options: its version, and runs pinned to it by default. */
export function versioningOptions(
  version: WorkerDeploymentVersion | undefined,
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  return version
    ? { workerDeploymentOptions: { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' } }
    : {};
}

/** `TASK_QUEUE_TYPE_WORKFLOW` in Temporal's API. */
const WORKFLOW_QUEUE = 1;

/**
 * Waits until the server lists `taskQueue` among the workflow queues of `version`, which its
 * workers' first polls register: a run pinned to a version the queue does not know yet is
 * refused. Gives up after `timeoutMs` and leaves the refusal to the start.
 */
export async function versionPolled(
  client: Client,
  version: WorkerDeploymentVersion,
  taskQueue: string,
  timeoutMs = 30_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const { workerDeploymentVersionInfo } = await client.workflowService.describeWorkerDeploymentVersion({
        namespace: client.options.namespace,
        deploymentVersion: version,
      });
      const queues = workerDeploymentVersionInfo?.taskQueueInfos ?? [];
      if (queues.some((q) => q.name === taskQueue && q.type === WORKFLOW_QUEUE)) return;
    } catch {
      // Not found until the first poll arrives.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
