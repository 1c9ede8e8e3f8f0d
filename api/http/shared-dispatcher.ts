// One keep-alive undici Agent per process (per connect timeout and connection cap), shared by every
// client instance.
import { Agent, type Dispatcher } from 'undici';

const agents = new Map<string, Agent>();

/**
 * Open connections to the API per process unless STUDYFLOW_API_MAX_CONNECTIONS says otherwise. A batch
 * activity sends up to 50 target groups' calls at once (two each for the gate reads) and a worker runs
 * several batches side by side: with fewer connections than calls in flight, calls wait in the client
 * for a whole round trip (at 200 target groups a cap of 64 cost about 0.7 s of the apply, and the 400
 * gate reads read beside the project outnumber 256, holding the project's own calls back).
 */
export const DEFAULT_MAX_CONNECTIONS = 512;

/** Options of the process-wide keep-alive agent. */
export interface SharedDispatcherOptions {
  /** Connect timeout in ms. */
  connectTimeoutMs: number;
  /** Most open connections to one origin (default {@link DEFAULT_MAX_CONNECTIONS}). */
  maxConnections?: number;
}

/** The process-wide keep-alive agent for the given settings (created on first use). */
export function sharedApiDispatcher(options: SharedDispatcherOptions): Dispatcher {
  const connections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const key = `${options.connectTimeoutMs}/${connections}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 10 * 60_000,
      connections,
      pipelining: 1,
      connect: { timeout: options.connectTimeoutMs },
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes every shared agent (worker shutdown). Later calls to {@link sharedApiDispatcher} create new ones. */
export async function closeSharedApiDispatchers(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((agent) => agent.close()));
}
