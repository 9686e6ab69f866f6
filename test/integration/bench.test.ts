import * as assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpTasksTestApi } from '../../extension/api';
import type { TaskView } from '../../extension/tasks/taskView';
import { readyOverHttp, waitFor } from './util';

/** Sidebar speed, measured in the real extension host (npm run bench:extension; not part of npm test). */
describe('sidebar benchmark', () => {
    let api: McpTasksTestApi;

    before(async () => {
        api = await readyOverHttp();
    });

    it('status change on the server → tree item updated', async () => {
        const endpoint = api.testing.clientEndpoint()!;
        const client = new Client({ name: 'bench', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } } }));
        const { tree, model } = api.testing;
        const samples: number[] = [];
        try {
            for (let i = 0; i < 30; i++) {
                const { task } = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60, label: `bench-${i}` }, task: {} } }, CreateTaskResultSchema);
                await waitFor('the task in the model', () => model.get(task.taskId), 5000, 5);
                const updated = new Promise<number>(resolve => {
                    const sub = tree.onDidChangeTreeData(change => {
                        const views = change === undefined ? model.all() : Array.isArray(change) ? change : [change];
                        if (views.some((view: TaskView) => view.taskId === task.taskId && view.status === 'cancelled')) {
                            sub.dispose();
                            resolve(performance.now());
                        }
                    });
                });
                const started = performance.now();
                await client.experimental.tasks.cancelTask(task.taskId);
                samples.push((await updated) - started);
            }
        } finally {
            await client.close();
        }
        samples.sort((a, b) => a - b);
        const median = samples[Math.floor(samples.length / 2)]!;
        console.log(`[bench] status change → tree item updated: median ${median.toFixed(1)} ms, p90 ${samples[Math.floor(samples.length * 0.9)]!.toFixed(1)} ms (n=${samples.length}, includes the tasks/cancel round trip)`);
        assert.ok(median < 1000);
    });

    it('1,000 tasks in the tree: a full refresh and a single-item update', () => {
        const { model, tree } = api.testing;
        model.clearFinished();
        for (let i = 0; i < 1000; i++) {
            model.applyWire({
                taskId: `synthetic-${i}`,
                status: i % 4 === 0 ? 'completed' : 'working',
                createdAt: new Date(Date.now() - i * 1000).toISOString(),
                lastUpdatedAt: new Date().toISOString(),
                ttl: 3_600_000,
                _meta: { 'dev.mcp-tasks/task-info': { toolName: 'slow_compute', args: { label: `synthetic ${i}` }, clientName: 'bench' } },
            });
        }
        const runs: number[] = [];
        for (let r = 0; r < 10; r++) {
            const started = performance.now();
            const roots = tree.getChildren();
            for (const view of roots) {
                tree.getTreeItem(view);
            }
            runs.push(performance.now() - started);
        }
        runs.sort((a, b) => a - b);
        const oneStarted = performance.now();
        model.applyProgress('synthetic-1', { progress: 1, total: 2 });
        tree.getTreeItem(model.get('synthetic-1')!);
        const one = performance.now() - oneStarted;
        console.log(`[bench] 1,000 tasks: full refresh (getChildren + 1,000 getTreeItem) median ${runs[5]!.toFixed(1)} ms; one progress update ${one.toFixed(2)} ms`);
        for (let i = 0; i < 1000; i++) {
            model.remove(`synthetic-${i}`);
        }
        assert.ok(runs[5]! < 1000);
    });
});
