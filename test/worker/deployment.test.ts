/** The Worker Deployment version a worker serves (docs/reference/operating.md#safe-deploys). */
import { describe, expect, it } from 'vitest';
import type { LevError } from '../../src/errors.js';
import { LEVIATH_VERSION } from '../../src/version.js';
import { versioningOptions, workerDeployment } from '../../src/worker/deployment.js';

describe('a worker deployment', () => {
  it('is none unless a deployment is named: workers stay unversioned', () => {
    expect(workerDeployment({}, {})).toBeUndefined();
    // lev doctor's workers: unversioned whatever the environment names.
    expect(workerDeployment({ deployment: '' }, { LEVIATH_DEPLOYMENT: 'prod' })).toBeUndefined();
    expect(versioningOptions(undefined)).toEqual({});
  });

  it('takes its name from --deployment, else LEVIATH_DEPLOYMENT, and its build id from Leviath’s version unless named', () => {
    expect(workerDeployment({}, { LEVIATH_DEPLOYMENT: 'prod' })).toEqual({
      deploymentName: 'prod',
      buildId: LEVIATH_VERSION,
    });
    expect(workerDeployment({ deployment: 'canary' }, { LEVIATH_DEPLOYMENT: 'prod', LEVIATH_BUILD_ID: 'b7' })).toEqual({
      deploymentName: 'canary',
      buildId: 'b7',
    });
    expect(workerDeployment({ buildId: '2026.12.05' }, { LEVIATH_DEPLOYMENT: 'prod', LEVIATH_BUILD_ID: 'b7' })).toEqual(
      {
        deploymentName: 'prod',
        buildId: '2026.12.05',
      },
    );
  });

  it('pins the runs a versioned worker takes by default', () => {
    const version = { deploymentName: 'prod', buildId: '0.3.0' };
    expect(versioningOptions(version)).toEqual({
      workerDeploymentOptions: { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' },
    });
  });

  it('refuses a name with a dot, and a build id without a deployment, as deployment-bad', () => {
    const bad = expect.objectContaining({ code: 'deployment-bad' }) as LevError;
    expect(() => workerDeployment({}, { LEVIATH_DEPLOYMENT: 'prod.eu' })).toThrow(bad);
    expect(() => workerDeployment({ buildId: 'b7' }, {})).toThrow(bad);
  });
});
