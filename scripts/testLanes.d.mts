/** See testLanes.mjs. */
export interface Phase {
    name: string;
    command: string;
}
/** Stages, run in order; a stage's lanes, side by side; a lane's phases, in order. */
export type Plan = Phase[][][];
export interface PhaseResult {
    name: string;
    outcome: 'passed' | 'failed' | 'stopped' | 'skipped';
    seconds: number;
}
export declare const PLAN: Plan;
export declare function failureLines(log: string): string[];
export declare function runLanes(
    plan: Plan,
    options: { logDir: string; cwd?: string; bail?: boolean; signal?: AbortSignal; print?: (text: string) => void; graceMs?: number },
): Promise<PhaseResult[]>;
