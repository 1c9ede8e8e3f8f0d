// Locates, and when needed builds, the pinned Temporal server (a Go tool, go-tool.mjs) that the worker-versioning
// test runs: the dev server of the pinned CLI (temporal-cli.mjs, server 1.29.1) never tells a pinned run that its
// deployment's target version changed, and the CLI releases that embed a newer server cannot be built with
// `go install` (their go.mod has a replace line). The server module wants Go >= 1.26.10: GOTOOLCHAIN=auto fetches it
// through the module proxy.
import { goTool } from './go-tool.mjs';

export const TEMPORAL_SERVER_VERSION = 'v1.32.2';

const tool = goTool({
  binary: 'server',
  label: `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
  module: 'go.temporal.io/server/cmd/server',
  version: TEMPORAL_SERVER_VERSION,
  pathVariable: 'TEMPORAL_SERVER_PATH',
  buildTime: 'about 10 minutes',
});

/** The binary to run: TEMPORAL_SERVER_PATH when set, else the cached pinned build. Undefined when neither exists. */
export const resolveTemporalServer = tool.resolve;

/** Ensures the pinned server is there, building it with `go install` into the cache the first time; returns its path. */
export function installTemporalServer(log) {
  process.env.GOTOOLCHAIN ||= 'auto';
  return tool.install(log);
}
