// Locates, and when needed builds, the pinned `temporal` CLI (Temporal dev server): a Go tool (go-tool.mjs).
import { goTool } from './go-tool.mjs';

/** The pinned release: the newest whose go.mod has no `replace` line, so `go install` can build it. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

const tool = goTool({
  binary: 'temporal',
  label: 'the temporal CLI',
  module: TEMPORAL_CLI_MODULE,
  version: TEMPORAL_CLI_VERSION,
  pathVariable: 'TEMPORAL_CLI_PATH',
  buildTime: 'a few minutes',
});

/** Where the cached binary lives (or would live). */
export const cachedTemporalCliPath = tool.cachedPath;
/** The binary to run: TEMPORAL_CLI_PATH when set, else the cached pinned build. Undefined when neither exists. */
export const resolveTemporalCli = tool.resolve;
/** Ensures the pinned CLI is there, building it with `go install` into the cache the first time; returns its path. */
export const installTemporalCli = tool.install;
