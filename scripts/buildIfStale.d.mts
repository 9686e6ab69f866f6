// Types for the TypeScript tests that import buildIfStale.mjs.
export const BUNDLES: string[];
export const INPUTS: string[];
export function staleBecause(root: string): string | undefined;
