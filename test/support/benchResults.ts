import type { Results } from '../../bench/lib/report.js';
import type { Kind } from '../../bench/lib/targets.js';

/** Results of one experiment as the bench gathers them: each side's rounds of one figure, a value a round. */
export function roundsOf(exp: string, figure: string, sides: Partial<Record<Kind, number[]>>): Results {
    const bySide = new Map(Object.entries(sides).map(([side, values]) => [side as Kind, values.map(value => ({ [figure]: value }))]));
    return new Map([[exp, bySide]]) as Results;
}
