import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { compareDiagnostics, makeDiagnostic, START_OF_FILE, type Diagnostic } from './diagnostic';
import { loadStudyFileWithDetails, type LoadedStudy, type LoadOptions } from './load-study-file';
import type { SharedDefinitions } from './shared-definitions';

const STUDY_EXTENSIONS = new Set(['.yaml', '.yml']);
/** Top-level keys of study and shared files; a YAML file found in a directory with none of them is something else. */
const STUDYFLOW_KEYS = new Set(['format', 'api_version', 'study', 'account', 'business_unit', 'project', 'defaults', 'target_groups', 'exclusion_groups', 'profile_templates', 'webhooks']);

/** Whether a file found by walking a directory is one of ours (CI configs and the like are not). Unreadable or broken files count as ours, so their problems are reported. */
async function isStudyflowFile(file: string): Promise<boolean> {
  try {
    const doc = parseDocument(await readFile(file, 'utf8'));
    if (doc.errors.length > 0 || !isMap(doc.contents)) return true;
    return doc.contents.items.some((pair) => STUDYFLOW_KEYS.has(String((pair.key as { value?: unknown })?.value ?? pair.key)));
  } catch {
    return true;
  }
}

async function yamlFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await yamlFilesUnder(full)));
    else if (entry.isFile() && STUDY_EXTENSIONS.has(path.extname(entry.name)) && (await isStudyflowFile(full))) out.push(full);
  }
  return out;
}

/**
 * Loads every study in the given files and directories (searched recursively for .yaml/.yml;
 * each directory's shared.yaml is shared definitions, not a study; a YAML file found in a directory
 * whose top level has none of the study file's keys, such as a CI config, is skipped, while a file
 * named explicitly is always checked). The set validates as a whole:
 * a study id used by two files is an error in the later one, and that study is left out.
 */
export async function loadStudies(pathsOrDirs: string[], options: LoadOptions = {}): Promise<{ studies: LoadedStudy[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  for (const p of pathsOrDirs) {
    try {
      const info = await stat(p);
      files.push(...(info.isDirectory() ? await yamlFilesUnder(p) : [p]));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      diagnostics.push(makeDiagnostic('SF1001', p, START_OF_FILE, [], `${p}: ${code === 'ENOENT' ? 'no such file or directory' : `cannot be read (${code})`}`));
    }
  }
  const seenFiles = new Set<string>();
  const sharedCache = options.sharedCache ?? new Map<string, Promise<SharedDefinitions>>();
  const studies: LoadedStudy[] = [];
  const firstFileOf = new Map<string, string>();
  for (const file of files) {
    const absolute = path.resolve(file);
    if (seenFiles.has(absolute)) continue;
    seenFiles.add(absolute);
    const result = await loadStudyFileWithDetails(file, { ...options, sharedCache, includeSharedDiagnostics: false });
    diagnostics.push(...result.diagnostics.filter((d) => !result.shared?.file || d.file !== result.shared.file));
    let duplicate = false;
    if (result.studyId !== undefined) {
      const first = firstFileOf.get(result.studyId);
      if (first !== undefined) {
        duplicate = true;
        diagnostics.push(
          makeDiagnostic('SF5004', file, result.studyIdRange ?? START_OF_FILE, ['study'], `study id \`${result.studyId}\` is also used by ${first}`, 'each study needs its own id; ids name the project and its workflows'),
        );
      } else {
        firstFileOf.set(result.studyId, file);
      }
    }
    if (result.study && !duplicate) studies.push(result.study);
  }
  for (const pending of sharedCache.values()) diagnostics.push(...(await pending).diagnostics);
  return { studies, diagnostics: diagnostics.sort(compareDiagnostics) };
}
