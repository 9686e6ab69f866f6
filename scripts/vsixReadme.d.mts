export declare const SOURCE: string;
export declare const PACKAGED: string;
export declare function rebaseToRoot(markdown: string): string;
export declare function writeVsixReadme(root: string): string;
