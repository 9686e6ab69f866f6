// The gateway-against-proxies row (issue 42): ours at least level with mcp-proxy and with
// supergateway on calls/s and on p50, each judged on the median of the rounds' own ratios (the
// three ran in turns each round); no verdict without every figure; the proxies' command lines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proxyArgs } from '../../bench/lib/proxyExperiment.js';
import { PROXY_EXP, proxyGoalMet, proxyLines, proxyRatio } from '../../bench/lib/proxyRows.js';
import type { Results } from '../../bench/lib/report.js';

/** Each side's rounds as the bench gathers them: [calls/s, p50 ms] per round. */
function results(sides: Record<string, [number, number][]>): Results {
    const bySide = new Map(Object.entries(sides).map(([side, rounds]) => [side, rounds.map(([echoRate, echoP50]) => ({ echoRate, echoP50, echoP99: echoP50 * 3, echoCpuUs: 50 }))]));
    return new Map([[PROXY_EXP, bySide]]) as unknown as Results;
}

describe('gateway against proxies row', () => {
    it('states ours ÷ each proxy for calls/s and the proxy ÷ ours for p50, median of the rounds', () => {
        const r = results({
            gateway: [[9000, 0.4], [4500, 0.8], [3000, 1.0]],
            'mcp-proxy': [[2000, 2.0], [1500, 2.4], [3000, 1.0]],
            supergateway: [[3000, 1.2], [1500, 2.4], [1000, 3.0]],
        });
        // Rounds: 4.5, 3, 1 → 3; p50: 5, 3, 1 → 3.
        assert.equal(proxyRatio(r, 'mcp-proxy', 'echoRate').toFixed(2), '3.00');
        assert.equal(proxyRatio(r, 'mcp-proxy', 'echoP50').toFixed(2), '3.00');
        assert.equal(proxyGoalMet(r), true);
        const [line] = proxyLines(r, 32);
        assert.equal(line!.vsMcpProxy, '3.00×; 3.00×');
        assert.equal(line!.vsSupergateway, '3.00×; 3.00×');
        assert.equal(line!.met, 'yes');
        assert.match(line!.goal, /≥ 1× each.*4\.5× mcp-proxy/);
    });

    it('fails the goal when one proxy is ahead on calls/s or on p50', () => {
        const slowerRate = results({ gateway: [[900, 0.4]], 'mcp-proxy': [[1000, 2.0]], supergateway: [[500, 1.2]] });
        assert.equal(proxyGoalMet(slowerRate), false);
        const slowerP50 = results({ gateway: [[2000, 1.5]], 'mcp-proxy': [[1000, 2.0]], supergateway: [[500, 1.2]] });
        assert.equal(proxyGoalMet(slowerP50), false);
        assert.equal(proxyLines(slowerP50, 32)[0]!.met, '**no**');
    });

    it('has no verdict without every side', () => {
        const noProxy = results({ gateway: [[9000, 0.4]], supergateway: [[3000, 1.2]] });
        assert.equal(proxyGoalMet(noProxy), undefined);
        const [line] = proxyLines(noProxy, 32);
        assert.equal(line!.vsMcpProxy, '–');
        assert.equal(line!.met, '?');
    });

    it('starts each proxy on Streamable HTTP at /mcp in front of server-everything, supergateway with one server per session', () => {
        const mcpProxy = proxyArgs('mcp-proxy', '/cache/mcp-proxy.mjs', 4100);
        assert.deepEqual(mcpProxy.slice(0, 9), ['/cache/mcp-proxy.mjs', '--host', '127.0.0.1', '--port', '4100', '--server', 'stream', '--streamEndpoint', '/mcp']);
        assert.equal(mcpProxy[9], '--');
        assert.match(mcpProxy.at(-2)!, /server-everything\/dist\/index\.js$/);
        const supergateway = proxyArgs('supergateway', '/cache/index.js', 4101);
        assert.ok(supergateway.includes('--stateful'));
        assert.equal(supergateway[supergateway.indexOf('--outputTransport') + 1], 'streamableHttp');
        assert.match(supergateway[supergateway.indexOf('--stdio') + 1]!, /server-everything\/dist\/index\.js" "stdio"$/);
    });
});
