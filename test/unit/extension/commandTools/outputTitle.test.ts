import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outputFileName } from '../../../../extension/commandTools/outputTitle';

describe('the output document of a command run', () => {
    // Local 14:02:11 on a fixed day, as an ISO time (the name shows the user's clock).
    const at = (h: number, m: number, s: number) => new Date(2026, 11, 2, h, m, s).toISOString();

    it('is named for the run and the time it started, so two runs of one command get two titles', () => {
        const first = outputFileName('long_build', at(14, 2, 11), new Set());
        const second = outputFileName('long_build', at(14, 3, 5), new Set([first]));
        assert.equal(first, 'long_build 14.02.11.log');
        assert.equal(second, 'long_build 14.03.05.log');
    });

    it('adds a number when two runs started in the same second', () => {
        const taken = new Set(['long_build 09.00.00.log']);
        assert.equal(outputFileName('long_build', at(9, 0, 0), taken), 'long_build 09.00.00 (2).log');
        taken.add('long_build 09.00.00 (2).log');
        assert.equal(outputFileName('long_build', at(9, 0, 0), taken), 'long_build 09.00.00 (3).log');
    });

    it('keeps the label file-safe and does without a time it cannot read', () => {
        assert.equal(outputFileName('Build: src/app', 'not a time', new Set()), 'Build_src_app.log');
    });
});
