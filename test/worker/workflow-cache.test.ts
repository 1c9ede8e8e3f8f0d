import { describe, expect, it } from 'vitest';
import { workflowCacheFromEnv, WorkflowCacheSizeError } from '../../worker/studyflow-worker';

describe('STUDYFLOW_WORKFLOW_CACHE', () => {
  it('is the SDK default when unset or empty', () => {
    expect(workflowCacheFromEnv({})).toBeUndefined();
    expect(workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: '  ' })).toBeUndefined();
  });

  it('takes 0 (no cache) and whole numbers of 2 or more', () => {
    expect(workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: '0' })).toBe(0);
    expect(workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: '2' })).toBe(2);
    expect(workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: ' 11110 ' })).toBe(11_110);
  });

  it.each(['1', '-5', '2.5', 'many', '1e400'])('refuses %j with a named error that quotes it', (bad) => {
    expect(() => workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: bad })).toThrow(WorkflowCacheSizeError);
    expect(() => workflowCacheFromEnv({ STUDYFLOW_WORKFLOW_CACHE: bad })).toThrow(`(it is "${bad}")`);
  });
});
