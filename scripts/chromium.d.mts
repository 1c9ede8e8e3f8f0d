export declare const CHROMIUM_PACKAGE: string;
export declare const CHROMIUM_PATH_VARIABLE: string;
export declare const CHROMIUM_INSTALL_COMMAND: string;
export declare const CHROMIUM_ARGS: string[];
export declare class ChromiumMissingError extends Error {
  constructor(detail: string, command?: string);
}
export declare function cachedChromiumDir(version?: string): string;
export declare function cachedChromiumPath(version?: string): string;
export declare function resolveChromium(): string | undefined;
export declare function chromiumExecutablePath(): string;
export declare function installChromium(log?: (line: string) => void): Promise<string>;
