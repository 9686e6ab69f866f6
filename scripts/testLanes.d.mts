/** See testLanes.mjs. */
export interface Phase {
    name: string;
    command: string;
}
export interface Plan {
    prepare: Phase[];
    lanes: Phase[][];
}
export interface PhaseResult {
    name: string;
    outcome: 'passed' | 'failed' | 'stopped' | 'skipped';
    seconds: number;
}
export declare const PLAN: Plan;
export declare function runLanes(
    plan: Plan,
    options: { logDir: string; cwd?: string; bail?: boolean; signal?: AbortSignal; print?: (text: string) => void; graceMs?: number },
): Promise<PhaseResult[]>;
