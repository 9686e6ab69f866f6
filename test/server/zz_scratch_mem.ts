// scratch: in-process memory investigation (deleted afterwards)
import { createTasksServer } from '../../server/src/server.js';
import { listenHttp } from '../../server/src/transports/http.js';
import { createLogger } from '../../server/src/log.js';
import { LightHttp, sleep } from './lightRpc.js';

async function main() {
    const core = createTasksServer({ defaultTtlMs: 3000, logger: createLogger('warn') });
    const http = await listenHttp(core, { host: '127.0.0.1', port: 0, bodyLimitBytes: 1 << 20, sessionIdleMs: 60_000 });
    const gc = (globalThis as { gc?: () => void }).gc!;
    const mem = (what: string) => { gc(); gc(); const m = process.memoryUsage(); console.log(what, 'heapUsed', (m.heapUsed / 1048576).toFixed(1), 'rss', (m.rss / 1048576).toFixed(1), 'ext', (m.external/1048576).toFixed(1), 'arrayBuffers', (m.arrayBuffers/1048576).toFixed(1)); };
    const round = async (n: number) => {
        await Promise.all(Array.from({ length: 20 }, async (_, c) => {
            const h = new LightHttp(http.url);
            await h.initialize();
            const s = await h.openStream(() => undefined);
            for (let i = 0; i < n; i++) {
                const tool = i % 5 === 0 ? { name: 'external_job', arguments: { job_id: `j${c}-${i}` } } : { name: 'slow_compute', arguments: { seconds: 0.01, label: `l${c}-${i}` } };
                const r = await h.result('tools/call', { ...tool, task: {}, _meta: { progressToken: `p${i}` } });
                const id = (r.task as { taskId: string }).taskId;
                await h.result('tasks/result', { taskId: id });
                await h.result('tasks/get', { taskId: id });
            }
            s.close();
            await h.close();
        }));
    };
    await round(20);
    await sleep(4000);
    mem('baseline');
    for (let k = 0; k < 3; k++) {
        await round(200);
        mem(`after round ${k}`);
        await sleep(4500);
        mem(`after ttl ${k}`);
        console.log('sessions', http.sessionCount, 'core sessions', core.sessionCount, 'running', core.runtime.runningCount, 'store', (core.runtime.store as unknown as { size: number }).size);
    }
    await http.close();
    await core.close();
}
void main();
