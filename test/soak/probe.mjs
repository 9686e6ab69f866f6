// Loaded into a soaked server with `node --expose-gc --import`: writes the server's memory to the
// file SOAK_PROBE_OUT names, every second, and, on SIGUSR2, once more after a full collection (the
// live heap, what a leak would grow). The variable is removed at once, so no child inherits it.
import { writeFileSync } from 'node:fs';

const out = process.env.SOAK_PROBE_OUT;
delete process.env.SOAK_PROBE_OUT;
if (out) {
    let collectedHeap;
    const write = () => {
        const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
        writeFileSync(out, JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers, collectedHeap }));
    };
    setInterval(write, 1000).unref();
    process.on('SIGUSR2', () => {
        globalThis.gc?.();
        collectedHeap = process.memoryUsage().heapUsed;
        write();
    });
}
