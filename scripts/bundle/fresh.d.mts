/** The types of scripts/bundle/fresh.mjs (plain JavaScript, so that bin/server.mjs loads it without tsx). */
export declare const root: string;
export declare const serverBundle: string;
export declare const serverInputs: string[];
export declare function serverStamp(rootDir: string): string;
export declare function newestInputMs(rootDir: string, inputs: string[]): number;
export declare function bundleIsFresh(bundlePath: string, rootDir: string, inputs: string[]): boolean;
