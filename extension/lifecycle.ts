import type * as vscode from 'vscode';

export interface IDisposable {
    dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
    let done = false;
    return {
        dispose: () => {
            if (!done) {
                done = true;
                fn();
            }
        },
    };
}

/** Owns its children: register them as they are made, and they go when this goes. */
export abstract class Disposable implements vscode.Disposable {
    private readonly children: IDisposable[] = [];
    private disposed = false;

    protected get isDisposed(): boolean {
        return this.disposed;
    }

    protected register<T extends IDisposable>(child: T): T {
        if (this.disposed) {
            child.dispose();
        } else {
            this.children.push(child);
        }
        return child;
    }

    dispose(): void {
        if (this.disposed) {
            return;
        }
        this.disposed = true;
        for (const child of this.children.splice(0).reverse()) {
            try {
                child.dispose();
            } catch {
                // One failing child must not keep the others alive.
            }
        }
    }
}
