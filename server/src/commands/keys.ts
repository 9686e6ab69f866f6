/**
 * Refuses keys a commands file does not know: a misspelt key would otherwise mean a setting
 * silently not applied (`"timeout": 5` is no timeout at all).
 */
export function checkKeys(value: Record<string, unknown>, known: readonly string[], where: string): void {
    for (const key of Object.keys(value)) {
        if (!known.includes(key)) {
            const near = nearest(key, known);
            throw new Error(`${where}: unknown key ${key}; ${near ? `did you mean ${near}?` : `known keys: ${known.join(', ')}`}`);
        }
    }
}

/** The known key `word` most likely meant: one it starts or ends, or one a few edits away. */
export function nearest(word: string, known: readonly string[]): string | undefined {
    const lower = word.toLowerCase();
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const candidate of known) {
        const other = candidate.toLowerCase();
        const distance = other.startsWith(lower) || lower.startsWith(other) ? Math.abs(other.length - lower.length) / 10 : editDistance(lower, other);
        if (distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const next = [i];
        for (let j = 1; j <= b.length; j++) {
            next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        }
        row = next;
    }
    return row[b.length]!;
}
