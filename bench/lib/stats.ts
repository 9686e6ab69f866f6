/** Small statistics helpers: percentiles over samples, medians over runs. */

export function percentile(samples: readonly number[], p: number): number {
    if (samples.length === 0) {
        return NaN;
    }
    const sorted = [...samples].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[rank]!;
}

export function median(values: readonly number[]): number {
    const finite = values.filter(Number.isFinite);
    if (finite.length === 0) {
        return NaN;
    }
    const sorted = [...finite].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Least-squares slope of y over x. */
export function slope(points: readonly { x: number; y: number }[]): number {
    const n = points.length;
    if (n < 2) {
        return NaN;
    }
    const mx = points.reduce((s, p) => s + p.x, 0) / n;
    const my = points.reduce((s, p) => s + p.y, 0) / n;
    let num = 0;
    let den = 0;
    for (const p of points) {
        num += (p.x - mx) * (p.y - my);
        den += (p.x - mx) ** 2;
    }
    return den === 0 ? NaN : num / den;
}

/** Formats a number with a sensible number of digits for a table cell. */
export function fmt(value: number, unit = ''): string {
    if (!Number.isFinite(value)) {
        return '–';
    }
    const abs = Math.abs(value);
    const text = abs >= 1000 ? Math.round(value).toLocaleString('en-US') : abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
    return unit ? `${text} ${unit}` : text;
}
