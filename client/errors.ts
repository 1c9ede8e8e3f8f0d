// The study client's one error mapping: what Temporal, the Demand API or the network said becomes a named
// error with the message and exit code the CLI prints (one line, never a stack trace). The commands do not
// map errors themselves; they catch nothing and let the CLI print what arrives. This file loads no package
// (the CLI's entry imports it); the mapping of a study workflow's errors is workflow-errors.ts.

/** A failure the client names: one line and the exit code the command ends with (1: failed, 2: usage, 5: a plan file gone stale). */
export class StudyClientError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 5 = 1,
  ) {
    super(message);
    this.name = 'StudyClientError';
  }
}

/**
 * A partial apply or plan (`--target-group`, `--except`) naming a target group none of the studies declares: a usage
 * error (exit 2), raised before anything is asked or written.
 */
export class UnknownTargetGroupError extends StudyClientError {
  constructor(
    readonly keys: string[],
    declared: string[],
  ) {
    super(`unknown target group ${keys.map((k) => `"${k}"`).join(', ')} in --target-group/--except (the studies declare: ${declared.join(', ') || 'none'})`, 2);
    this.name = 'UnknownTargetGroupError';
  }
}

/** One line for an error nobody named: its message, never a stack trace (STUDYFLOW_DEBUG=1 shows it). */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || /ECONNREFUSED|UNAVAILABLE|failed to connect|connection refused/i.test(error.message)) {
      return `cannot reach a service: ${error.message.split('\n')[0]} (is \`studyflow dev\` running, or TEMPORAL_ADDRESS / STUDYFLOW_API_BASE_URL set?)`;
    }
    if (error.name === 'PayloadDecryptionError') return describePayloadDecryption(error);
    // A settings error lists every variable at fault (never a value) on lines of their own: keep them all, on one line.
    if (error.name === 'ApiConfigError') {
      const [title, ...issues] = error.message.split('\n').map((line) => line.trim()).filter(Boolean);
      return `${title} ${issues.join('; ')}`;
    }
    return error.message.split('\n')[0];
  }
  return String(error);
}

/** A workflow payload this process cannot decrypt: what is wrong, and which variables hold the keys. */
function describePayloadDecryption(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const message = error.message.split('\n')[0];
  if (code === 'no_key') return `${message} (\`studyflow dev\` keeps its key in <state-dir>/codec-key.json, by default .studyflow/codec-key.json)`;
  if (code === 'unknown_key') return `${message}: add that key to STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE (the keys the workers use)`;
  return `cannot decrypt a workflow payload: ${message}; check STUDYFLOW_CODEC_KEYS or STUDYFLOW_CODEC_KEY_FILE against the workers' keys`;
}
