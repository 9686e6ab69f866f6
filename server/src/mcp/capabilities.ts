import type { McpServices, RevisionName } from './context.js';
import { TASKS_EXTENSION } from './rev2026/envelope.js';

/** What every revision declares: the tools, and an embedder's own (services.capabilities). */
const COMMON = { tools: { listChanged: true } } as const;

/** What each revision adds: 2025-11-25 has tasks as a capability, 2026-07-28 as an extension. */
const BY_REVISION: Record<RevisionName, Record<string, unknown>> = {
    '2025-11-25': { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    '2026-07-28': { extensions: { [TASKS_EXTENSION]: {} } },
};

const declared = new WeakMap<McpServices, { extra: Record<string, unknown> | undefined; both: Record<RevisionName, Record<string, unknown>> }>();

/**
 * The capabilities `initialize` (2025-11-25) and `server/discover` (2026-07-28) declare: the one
 * place they come from. An embedder that serves more (the gateway) (prompts, resources) adds them to
 * `services.capabilities`; made once per services object and embedder capabilities (a gateway's
 * change as its wrapped servers connect), and the same object every time.
 */
export function capabilitiesOf(services: McpServices, revision: RevisionName): Record<string, unknown> {
    let made = declared.get(services);
    if (!made || made.extra !== services.capabilities) {
        const extra = services.capabilities ?? {};
        made = { extra: services.capabilities, both: { '2025-11-25': { ...COMMON, ...extra, ...BY_REVISION['2025-11-25'] }, '2026-07-28': { ...COMMON, ...extra, ...BY_REVISION['2026-07-28'] } } };
        declared.set(services, made);
    }
    return made.both[revision];
}
