export declare const TEMPORAL_CLI_VERSION: string;
export declare const TEMPORAL_CLI_MODULE: string;
export declare function cachedTemporalCliPath(): string;
export declare function resolveTemporalCli(): string | undefined;
export declare function installTemporalCli(log?: (line: string) => void): string;
