export declare function cacheRoot(): string;
export interface GoToolSpec {
  binary: string;
  label: string;
  module: string;
  version: string;
  pathVariable: string;
  buildTime: string;
}
export declare function goTool(spec: GoToolSpec): {
  cachedPath(): string;
  resolve(): string | undefined;
  install(log?: (line: string) => void): string;
};
