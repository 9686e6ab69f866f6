/**
 * Which operating systems a test holds on, declared in one place. A test that cannot hold on an OS
 * (it reads /proc, signals a process group, checks file modes) is skipped there with a reason naming
 * the OS and what differs: node:test prints the skip, so the hosted matrix's log shows it, and a skip
 * is never counted as a pass. Every test runs on Linux, where the suites are developed.
 */
export type TestOs = 'linux' | 'darwin' | 'win32';

/** node:test options that run the test only on `oses`, naming on any other OS what differs there. */
export function onlyOn(oses: readonly TestOs[], differs: string): { skip: string | false } {
    const os = process.platform as string;
    return { skip: oses.includes(os as TestOs) ? false : `not run on ${os}: ${differs}` };
}

/** Linux and macOS: POSIX programs (sh, true, env), signals and file modes. */
export const posixOnly = (differs: string) => onlyOn(['linux', 'darwin'], differs);

/** Linux alone: /proc. */
export const linuxOnly = (differs: string) => onlyOn(['linux'], differs);
