import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeWorkflowBundle } from '../../worker/studyflow-worker';

describe('the prebuilt workflow bundle', () => {
  it('writes one self-contained file with both workflow types', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-bundle-'));
    try {
      const file = path.join(dir, 'nested', 'workflow-bundle.js');
      const { bytes } = await writeWorkflowBundle(file);
      const code = fs.readFileSync(file, 'utf8');
      expect(bytes).toBe(Buffer.byteLength(code));
      expect(code).toContain('studyWorkflow');
      expect(code).toContain('targetGroupWorkflow');
      // Workflow code must not pull in I/O layers.
      expect(code).not.toMatch(/require\("undici"\)|from "undici"/);
      expect(fs.existsSync(`${file}.tmp`)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
