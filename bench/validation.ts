// Benchmark: validation throughput. Study files per second through `loadStudies` (parse, schema,
// rules, cross-file checks) and a 100,000-line ID list through `checkIdListFile`. No Temporal, no API.
//
//   node bin/run-ts.js bench/validation.ts [--files 300] [--target-groups 8] [--ids 100000] [--repeat 3]
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkIdListFile, hasErrors, loadStudies } from '../definitions';
import { benchStudyYaml, numberArg, runContext, writeResult } from './bench-stack';
import type { ValidationResult } from './result-types';
import { median } from './stats';

const files = numberArg('files', 300);
const targetGroups = numberArg('target-groups', 8);
const ids = numberArg('ids', 100_000);
const repeat = numberArg('repeat', 3);

const context = runContext();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-bench-validation-'));
try {
  const studyDir = path.join(dir, 'studies');
  fs.mkdirSync(studyDir);
  let bytes = 0;
  for (let i = 0; i < files; i += 1) {
    const text = benchStudyYaml(`validation-${String(i).padStart(4, '0')}`, targetGroups);
    bytes += Buffer.byteLength(text);
    fs.writeFileSync(path.join(studyDir, `study-${i}.yaml`), text);
  }
  const loadTimes: number[] = [];
  for (let r = 0; r < repeat; r += 1) {
    const started = performance.now();
    const { studies, diagnostics } = await loadStudies([studyDir]);
    loadTimes.push(performance.now() - started);
    if (studies.length !== files || hasErrors(diagnostics)) {
      throw new Error(`loadStudies validated ${studies.length} of ${files} files; first problem: ${diagnostics[0]?.message ?? 'none'}`);
    }
  }

  const idFile = path.join(dir, 'ids.txt');
  const lines: string[] = [];
  for (let i = 0; i < ids; i += 1) lines.push(randomUUID());
  fs.writeFileSync(idFile, `${lines.join('\n')}\n`);
  const checkTimes: number[] = [];
  for (let r = 0; r < repeat; r += 1) {
    const started = performance.now();
    const check = await checkIdListFile(idFile, 'respondent_guids');
    checkTimes.push(performance.now() - started);
    if (check.count !== ids || hasErrors(check.diagnostics)) throw new Error(`checkIdListFile counted ${check.count} of ${ids} IDs`);
  }

  const loadMs = median(loadTimes);
  const checkMs = median(checkTimes);
  const report: ValidationResult = {
    benchmark: 'validation',
    command: `node bin/run-ts.js bench/validation.ts --files ${files} --target-groups ${targetGroups} --ids ${ids} --repeat ${repeat}`,
    ...context,
    studyFiles: {
      files,
      targetGroupsPerFile: targetGroups,
      totalBytes: bytes,
      medianMs: Math.round(loadMs),
      runsMs: loadTimes.map(Math.round),
      filesPerSecond: Math.round((files * 1000) / loadMs),
    },
    idList: {
      kind: 'respondent_guids (UUIDs)',
      lines: ids,
      bytes: fs.statSync(idFile).size,
      medianMs: Math.round(checkMs),
      runsMs: checkTimes.map(Math.round),
      linesPerSecond: Math.round((ids * 1000) / checkMs),
    },
  };
  writeResult('validation', report);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
