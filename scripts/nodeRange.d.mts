/** See nodeRange.mjs. */
export declare function satisfies(version: string, range: string): boolean;
export declare function supportedRange(): string;
export declare function serverRange(): string;
export declare function unsupportedNode(version?: string, range?: string): string | undefined;
