// The study client's one Temporal connection: opened on the first call that needs it (a command that fails
// before reaching Temporal opens none), shared by every call after it, and closed once.
import type { Client, Connection } from '@temporalio/client';
import { connectClient, temporalSettings, workflowTaskQueue, type TemporalSettings } from '../temporal/temporal-connection';
import { mark } from './timeline';

export class TemporalSession {
  private settingsRead?: TemporalSettings;
  private opening?: Promise<{ client: Client; connection: Connection }>;
  private closed = false;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Address, namespace and TLS options from TEMPORAL_* (read once, without connecting). */
  get settings(): TemporalSettings {
    this.settingsRead ??= temporalSettings(this.env);
    return this.settingsRead;
  }

  /** The task queue the study workflows run on (STUDYFLOW_TASK_QUEUE). */
  get taskQueue(): string {
    return workflowTaskQueue(this.env);
  }

  /** The client over the one connection, connecting on first use. */
  async client(): Promise<Client> {
    return (await this.open()).client;
  }

  /** The connection itself (for a reachability probe that asks the server directly). */
  async connection(): Promise<Connection> {
    return (await this.open()).connection;
  }

  private open(): Promise<{ client: Client; connection: Connection }> {
    if (this.closed) return Promise.reject(new Error('the study client is closed'));
    this.opening ??= connectClient(this.settings, this.env).then((opened) => {
      mark('connected');
      return opened;
    });
    return this.opening;
  }

  /** Closes the connection if one was opened (a connection that failed to open has nothing to close). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    const opened = await opening.catch(() => undefined);
    await opened?.connection.close();
  }
}
