// shared.yaml: exclusion groups and profile templates that every study in the same directory can
// use by name. It is checked once per directory and its diagnostics name the shared file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeDiagnostic, START_OF_FILE, type Diagnostic } from './diagnostic';
import { checkDocument, type CheckedDocument } from './document-checks';
import { isPlainObject, type DocPath } from './doc-path';
import { checkProfileDefinition } from './rules/profile-rules';
import { checkNotifyTargets, type DeclaredNotifyTarget } from './notify-targets';
import { ProfileTemplateSchema, SHARED_FILE_NAMES, type Profile } from './study-schema';
import { decodeYamlBytes } from './yaml-source';

export interface DeclaredTemplate {
  /** Undefined when the template itself has errors (its name still resolves, to avoid follow-on errors). */
  profiles?: Profile[];
  file: string;
  path: DocPath;
}

export interface DeclaredExclusionGroup {
  /** Display name (default: the key). */
  name: string;
  file: string;
  path: DocPath;
}

export interface SharedDefinitions {
  /** The shared file as diagnostics name it, when the directory has one. */
  file?: string;
  templates: Map<string, DeclaredTemplate>;
  exclusionGroups: Map<string, DeclaredExclusionGroup>;
  /** `notify:` targets every study of the directory gets. */
  notify?: DeclaredNotifyTarget[];
  diagnostics: Diagnostic[];
}

export function isSharedFileName(file: string): boolean {
  return (SHARED_FILE_NAMES as readonly string[]).includes(path.basename(file));
}

/** Profile templates declared under `profile_templates` of a checked file; their own rules run here. */
export function readTemplates(doc: CheckedDocument): Map<string, DeclaredTemplate> {
  const out = new Map<string, DeclaredTemplate>();
  const raw = doc.data.profile_templates;
  if (!isPlainObject(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const at = ['profile_templates', name];
    const parsed = doc.hasErrorWithin(at) ? undefined : ProfileTemplateSchema.safeParse(value);
    const profiles = parsed?.success ? parsed.data.profiles : undefined;
    profiles?.forEach((profile, i) => checkProfileDefinition(profile, [...at, 'profiles', i], doc.reporter));
    out.set(name, { profiles, file: doc.reporter.file, path: at });
  }
  return out;
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Loads `shared.yaml` (or `shared.yml`) of a directory. A directory without one has empty
 * definitions. `dir` is as the caller names it; diagnostics use `dir/shared.yaml`.
 */
export async function loadSharedDefinitions(dir: string, env: Record<string, string | undefined>): Promise<SharedDefinitions> {
  const empty: SharedDefinitions = { templates: new Map(), exclusionGroups: new Map(), diagnostics: [] };
  for (const name of SHARED_FILE_NAMES) {
    const file = path.join(dir, name);
    let bytes: Buffer | undefined;
    try {
      bytes = await readIfExists(file);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      return { ...empty, file, diagnostics: [makeDiagnostic('SF1001', file, START_OF_FILE, [], `cannot read ${file} (${reason})`)] };
    }
    if (bytes === undefined) continue;
    const { text, diagnostics: notText } = decodeYamlBytes(bytes, file);
    if (text === undefined) return { ...empty, file, diagnostics: notText };
    const { checked, diagnostics } = checkDocument(text, file, 'shared', env);
    if (!checked) return { ...empty, file, diagnostics };
    const templates = readTemplates(checked);
    const exclusionGroups = new Map<string, DeclaredExclusionGroup>();
    if (isPlainObject(checked.data.exclusion_groups)) {
      for (const [key, value] of Object.entries(checked.data.exclusion_groups)) {
        const display = isPlainObject(value) && typeof value.name === 'string' ? value.name : key;
        exclusionGroups.set(key, { name: display, file, path: ['exclusion_groups', key] });
      }
    }
    const notify = checked.hasErrorWithin(['notify']) ? [] : checkNotifyTargets(checked.data, checked.reporter);
    return { file, templates, exclusionGroups, notify, diagnostics: checked.reporter.diagnostics };
  }
  return empty;
}
