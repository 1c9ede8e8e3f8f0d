export declare const TEMPORAL_SERVER_VERSION: string;
export declare function resolveTemporalServer(): string | undefined;
export declare function installTemporalServer(log?: (line: string) => void): string;
