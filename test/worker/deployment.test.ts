import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildIdOf, DeploymentNameError, packageVersion, workerDeploymentVersion } from '../../worker/deployment';

describe('the worker deployment version a worker runs as', () => {
  const code = 'globalThis.__workflows = {};';
  const hash12 = createHash('sha256').update(code).digest('hex').slice(0, 12);

  it('defaults to the task queue and <package version>-<12 hex of the bundle SHA-256>', () => {
    expect(workerDeploymentVersion({}, 'studyflow', code)).toEqual({ deploymentName: 'studyflow', buildId: `${packageVersion()}-${hash12}` });
    expect(buildIdOf('0.2.0', code)).toBe(`0.2.0-${hash12}`);
  });

  it('gives the same bundle the same build and another bundle another', () => {
    expect(workerDeploymentVersion({}, 'q', code)).toEqual(workerDeploymentVersion({}, 'q', code));
    expect(workerDeploymentVersion({}, 'q', `${code}\n// changed`).buildId).not.toBe(workerDeploymentVersion({}, 'q', code).buildId);
  });

  it('takes STUDYFLOW_BUILD_ID and STUDYFLOW_DEPLOYMENT over the defaults (blank ones do not count)', () => {
    expect(workerDeploymentVersion({ STUDYFLOW_BUILD_ID: 'release-7', STUDYFLOW_DEPLOYMENT: 'studies-eu' }, 'studyflow', code)).toEqual({ deploymentName: 'studies-eu', buildId: 'release-7' });
    expect(workerDeploymentVersion({ STUDYFLOW_BUILD_ID: '  ', STUDYFLOW_DEPLOYMENT: '' }, 'studyflow', code).buildId).toBe(`${packageVersion()}-${hash12}`);
  });

  it('refuses a build id or deployment name that is not a name, naming the variable', () => {
    expect(() => workerDeploymentVersion({ STUDYFLOW_BUILD_ID: 'a b' }, 'studyflow', code)).toThrow(DeploymentNameError);
    expect(() => workerDeploymentVersion({ STUDYFLOW_BUILD_ID: 'a/b' }, 'studyflow', code)).toThrow(/STUDYFLOW_BUILD_ID/);
    expect(() => workerDeploymentVersion({ STUDYFLOW_DEPLOYMENT: '.hidden' }, 'studyflow', code)).toThrow(/STUDYFLOW_DEPLOYMENT/);
    // The server refuses `.` in a deployment name (it separates name and build in a version's string form): a task
    // queue with one needs STUDYFLOW_DEPLOYMENT; a build id may hold dots (0.1.0-…).
    expect(() => workerDeploymentVersion({}, 'studies.eu', code)).toThrow(/task queue; set STUDYFLOW_DEPLOYMENT/);
    expect(workerDeploymentVersion({ STUDYFLOW_DEPLOYMENT: 'studies-eu' }, 'studies.eu', code).deploymentName).toBe('studies-eu');
  });
});
