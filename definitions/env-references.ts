// `${NAME}` in any string value is replaced by the environment variable NAME at load; `$${` is a literal `${`.
import { isPlainObject, pathKey, type DocPath } from './doc-path';

export interface EnvProblem {
  kind: 'unset' | 'malformed';
  path: DocPath;
  /** The variable name (unset) or the malformed reference text. */
  name: string;
}

export interface EnvResolution {
  data: unknown;
  problems: EnvProblem[];
  /** pathKey -> variable names, for values that came (partly) from the environment: never echo them. */
  fromEnv: Map<string, string[]>;
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function resolveString(value: string, env: Record<string, string | undefined>, at: DocPath, problems: EnvProblem[], names: string[]): string {
  if (!value.includes('${')) return value;
  return value.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (!match.endsWith('}') || inner === undefined || !NAME.test(inner)) {
      problems.push({ kind: 'malformed', path: at, name: match });
      return match;
    }
    names.push(inner);
    const resolved = env[inner];
    if (resolved === undefined) {
      problems.push({ kind: 'unset', path: at, name: inner });
      return match; // left as written, so the rest of the file is still checked
    }
    return resolved;
  });
}

/**
 * A copy of the data with every `${NAME}` replaced; unset or malformed references are problems. Strings at
 * paths `keepAsWritten` accepts stay as written (a notify target's URL, which the worker resolves).
 */
export function resolveEnvReferences(data: unknown, env: Record<string, string | undefined>, keepAsWritten?: (at: DocPath) => boolean): EnvResolution {
  const problems: EnvProblem[] = [];
  const fromEnv = new Map<string, string[]>();
  const walk = (node: unknown, at: DocPath): unknown => {
    if (typeof node === 'string') {
      if (keepAsWritten?.(at)) return node;
      const names: string[] = [];
      const out = resolveString(node, env, at, problems, names);
      if (names.length) fromEnv.set(pathKey(at), names);
      return out;
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...at, i]));
    if (isPlainObject(node)) {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        Object.defineProperty(out, key, { value: walk(value, [...at, key]), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return node;
  };
  return { data: walk(data, []), problems, fromEnv };
}
