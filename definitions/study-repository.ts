// The study repository: the directory that files a study file names (ID lists) must stay inside,
// so that a study file in a pull request cannot make `plan` read and upload any file of the machine
// (`../../../../etc/passwd`, `/etc/hostname`, or a symlink that points out). It is the nearest git
// work tree that holds the study file (a directory with a `.git` directory or file), else, outside
// git, the study file's own directory. Paths are compared after resolving symlinks.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export interface StudyRepository {
  /** Real path of the repository's root directory. */
  root: string;
  /** Whether the root is a git work tree (else it is the study file's directory). */
  git: boolean;
}

/** The environment variable that lets ID lists lie outside the study repository (`1`, `true`, `yes` or `on`). */
export const ALLOW_OUTSIDE_PATHS_ENV = 'STUDYFLOW_ALLOW_OUTSIDE_PATHS';

/** Whether the environment opts out of the repository rule. */
export function allowOutsidePathsFromEnv(env: Record<string, string | undefined>): boolean {
  return /^(1|true|yes|on)$/i.test(env[ALLOW_OUTSIDE_PATHS_ENV]?.trim() ?? '');
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** The real path of `file`, or, when it does not exist, the real path of its nearest existing ancestor joined with the rest. */
export async function realpathLoose(file: string): Promise<string> {
  const absolute = path.resolve(file);
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await realpathLoose(parent), path.basename(absolute));
  }
}

/** The repository of a study file (see the top of this file). */
export async function studyRepositoryOf(studyFile: string): Promise<StudyRepository> {
  const dir = await realpathLoose(path.dirname(path.resolve(studyFile)));
  for (let at = dir; ; at = path.dirname(at)) {
    if (await exists(path.join(at, '.git'))) return { root: at, git: true };
    if (path.dirname(at) === at) return { root: dir, git: false };
  }
}

/** Whether `inner` (a real path) is `root` or lies under it. */
export function isInside(root: string, inner: string): boolean {
  const rel = path.relative(root, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Where `file` really is when that is outside the repository (symlinks resolved; a missing file by its path), else undefined. */
export async function outsideRepository(repository: StudyRepository, file: string): Promise<string | undefined> {
  const real = await realpathLoose(file);
  return isInside(repository.root, real) ? undefined : real;
}
