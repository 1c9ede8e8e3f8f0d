export declare const VERSITYGW_VERSION: string;
export declare const VERSITYGW_MODULE: string;
export declare function cachedVersitygwPath(): string;
export declare function resolveVersitygw(): string | undefined;
export declare function installVersitygw(log?: (line: string) => void): string;
