/** Prompts the extension has open for tasks, so clicking a needs-input task can bring one back. */
export interface Reopenable {
    show(): void;
    /** True while it was hidden (Escape, Quick Open) and waits for Respond. */
    readonly hidden: boolean;
    /** Settles once the question is gone: true when the user answered it (declining is an answer). */
    readonly settled: Promise<boolean>;
}

export class PendingInputs {
    private readonly byTask = new Map<string, Reopenable>();

    set(taskId: string, prompt: Reopenable): { dispose(): void } {
        this.byTask.set(taskId, prompt);
        return {
            dispose: () => {
                if (this.byTask.get(taskId) === prompt) {
                    this.byTask.delete(taskId);
                }
            },
        };
    }

    get(taskId: string): Reopenable | undefined {
        return this.byTask.get(taskId);
    }
}
