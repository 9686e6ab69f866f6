// The first module the CLI loads, and it imports nothing: on a Node.js too old for the server, the
// user reads one line that says what to do, before any other module fails in its own words (Node
// 18 gave a stack trace about getRandomValues).
const MINIMUM = [20, 3] as const;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
    process.stderr.write(
        `mcp-tasks needs Node.js ${MINIMUM.join('.')} or later, and this is Node.js ${process.versions.node}: install a current Node.js (22 LTS: https://nodejs.org) and start it again.\n`,
    );
    process.exit(1);
}
export {};
