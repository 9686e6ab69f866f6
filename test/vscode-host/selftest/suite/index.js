// Suite entry in the shape both hosts expect (code-server here, @vscode/test-electron
// elsewhere): run() resolves when all tests pass and rejects otherwise.
const path = require('node:path');

// The extension host does not resolve packages from the repo root, so mocha is
// found relative to this file, i.e. in the repo's node_modules.
const Mocha = require(require.resolve('mocha', { paths: [__dirname] }));

function run() {
    // color: false because the output is re-logged through the browser console.
    const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
    mocha.addFile(path.join(__dirname, 'host.test.js'));
    return new Promise((resolve, reject) => {
        mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} tests failed`)) : resolve()));
    });
}

module.exports = { run };
