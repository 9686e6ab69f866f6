// Picks which VS Code chat model answers an MCP sampling request. Kept free of `vscode`
// so the matching rules are unit-tested; the caller passes `vscode.lm.selectChatModels()`.

export interface ModelInfo {
    id: string;
    name: string;
    family: string;
    vendor: string;
}

type Field = 'family' | 'name' | 'id';
const FIELDS: readonly Field[] = ['family', 'name', 'id'];

/**
 * The model for a request: the first server hint that matches (hints are in the
 * server's order of preference), else the user's `preferred` setting, else the
 * first model. Undefined only when there are no models.
 */
export function chooseModel<T extends ModelInfo>(models: readonly T[], hints: readonly { name?: string }[] | undefined, preferred?: string): T | undefined {
    for (const hint of hints ?? []) {
        const found = matchName(models, hint.name);
        if (found) {
            return found;
        }
    }
    return matchName(models, preferred) ?? models[0];
}

/**
 * Case-insensitive: an exact family, name or id beats a substring match, so the hint
 * "gpt-4o" picks family "gpt-4o" over "gpt-4o-mini" whatever order the models come in.
 */
function matchName<T extends ModelInfo>(models: readonly T[], name: string | undefined): T | undefined {
    const wanted = name?.trim().toLowerCase();
    if (!wanted) {
        return undefined;
    }
    for (const exact of [true, false]) {
        for (const field of FIELDS) {
            const found = models.find(m => {
                const value = m[field].toLowerCase();
                return exact ? value === wanted : value.includes(wanted);
            });
            if (found) {
                return found;
            }
        }
    }
    return undefined;
}
