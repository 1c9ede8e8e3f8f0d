// Credentials never live in a study file: a key that looks like one must hold a `${ENV}` reference.
import { isPlainObject, type DocPath } from './doc-path';

const CREDENTIAL_WORDS = new Set(['secret', 'secrets', 'password', 'passwd', 'pwd', 'token', 'tokens', 'apikey', 'credential', 'credentials', 'passphrase']);
const CREDENTIAL_PAIRS = new Set(['api key', 'private key', 'access key', 'client secret', 'auth key', 'bearer token']);
/** Maps whose keys are the user's own names, not fields. */
const NAME_MAPS = new Set(['target_groups', 'exclusion_groups', 'profile_templates']);
export const ENV_REFERENCE_ONLY = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** Whether a key name looks like it holds a credential (`client_secret`, `apiKey`, `password`, `auth-token`, …). */
export function looksLikeCredentialKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.some((w) => CREDENTIAL_WORDS.has(w))) return true;
  return words.some((w, i) => i + 1 < words.length && CREDENTIAL_PAIRS.has(`${w} ${words[i + 1]}`));
}

/** Paths of credential-like keys whose value is written out instead of a `${ENV}` reference. */
export function findWrittenCredentials(data: unknown): DocPath[] {
  const found: DocPath[] = [];
  const walk = (node: unknown, nodePath: DocPath) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...nodePath, i]));
      return;
    }
    if (!isPlainObject(node)) return;
    const namesOnly = nodePath.length === 1 && NAME_MAPS.has(String(nodePath[0]));
    for (const [key, value] of Object.entries(node)) {
      const childPath = [...nodePath, key];
      if (!namesOnly && looksLikeCredentialKey(key) && value !== null && typeof value !== 'object') {
        if (!(typeof value === 'string' && ENV_REFERENCE_ONLY.test(value))) found.push(childPath);
        continue;
      }
      walk(value, childPath);
    }
  };
  walk(data, []);
  return found;
}
