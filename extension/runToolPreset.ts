// What Run Tool accepts as its argument. VS Code hands a view's title-bar command the focused row,
// and keybindings or other extensions may pass anything: only this exact shape skips the pickers.

export type RunMode = 'task' | 'wait';

/** `{ name, args?, mode? }`: run that tool with those arguments, without asking. */
export interface RunToolPreset {
    name: string;
    args?: Record<string, unknown>;
    mode?: RunMode;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The preset in `value`, or undefined for anything else (a tree row, a URI, nothing): Run Tool then asks. */
export function runToolPreset(value: unknown): RunToolPreset | undefined {
    if (!isRecord(value) || typeof value.name !== 'string' || value.name === '') {
        return undefined;
    }
    const keys = Object.keys(value);
    if (keys.some(key => key !== 'name' && key !== 'args' && key !== 'mode')) {
        return undefined;
    }
    if (value.args !== undefined && !isRecord(value.args)) {
        return undefined;
    }
    if (value.mode !== undefined && value.mode !== 'task' && value.mode !== 'wait') {
        return undefined;
    }
    return { name: value.name, args: value.args as Record<string, unknown> | undefined, mode: value.mode as RunMode | undefined };
}
