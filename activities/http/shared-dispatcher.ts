// One keep-alive undici Agent per process (per connect timeout), shared by every client instance.
import { Agent, type Dispatcher } from 'undici';

const agents = new Map<number, Agent>();

/** Options of the process-wide keep-alive agent. */
export interface SharedDispatcherOptions {
  /** Connect timeout in ms. */
  connectTimeoutMs: number;
}

/** The process-wide keep-alive agent for the given connect timeout (created on first use). */
export function sharedApiDispatcher(options: SharedDispatcherOptions): Dispatcher {
  let agent = agents.get(options.connectTimeoutMs);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 10 * 60_000,
      connections: 64,
      pipelining: 1,
      connect: { timeout: options.connectTimeoutMs },
    });
    agents.set(options.connectTimeoutMs, agent);
  }
  return agent;
}

/** Closes every shared agent (worker shutdown). Later calls to {@link sharedApiDispatcher} create new ones. */
export async function closeSharedApiDispatchers(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((agent) => agent.close()));
}
