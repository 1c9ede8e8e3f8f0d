// Locates, and when needed builds, the pinned versitygw (Versity S3 Gateway): the S3 server that
// `studyflow dev --blob s3` and the multi-host test run over a local directory (posix backend). A Go tool
// (go-tool.mjs).
import { goTool } from './go-tool.mjs';

/** The pinned release. Its go.mod has no `replace` directive, so `go install module@version` builds it. */
export const VERSITYGW_VERSION = 'v1.8.0';
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw';

const tool = goTool({
  binary: 'versitygw',
  label: 'versitygw (the local S3 server)',
  module: VERSITYGW_MODULE,
  version: VERSITYGW_VERSION,
  pathVariable: 'VERSITYGW_PATH',
  buildTime: 'a minute or two',
});

/** Where the cached binary lives (or would live). */
export const cachedVersitygwPath = tool.cachedPath;
/** The binary to run: VERSITYGW_PATH when set, else the cached pinned build. Undefined when neither exists. */
export const resolveVersitygw = tool.resolve;
/** Ensures the pinned versitygw is there, building it with `go install` into the cache the first time; returns its path. */
export const installVersitygw = tool.install;
