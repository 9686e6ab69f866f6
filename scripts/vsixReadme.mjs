// The .vsix's README is extension/README.md, written for editor users. In the .vsix it sits at the
// extension's root, so its links into the repository (../docs/images/…) lose their `../` there;
// vsce then rewrites them to the repository's URL. VS Code 1.139's details page draws only https:
// images: its README sanitizer keeps only http(s) image sources (a relative path or a data: URL
// comes out with no src; tried with data: URLs, packed with --no-rewrite-relative-links) and its
// CSP allows no http:. So the images need the internet where the README is read, as on the Marketplace.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const SOURCE = 'extension/README.md';
/** Where `npm run package` writes the rebased copy it hands to vsce (--readme-path). */
export const PACKAGED = 'dist/README.md';

/** Markdown links and images that climb out of extension/ point at the same file from the root. */
export function rebaseToRoot(markdown) {
    return markdown.replace(/\]\(\.\.\//g, '](');
}

export function writeVsixReadme(root) {
    // On a fresh clone nothing has built dist/ yet: vsce's prepublish build runs after this.
    mkdirSync(dirname(resolve(root, PACKAGED)), { recursive: true });
    writeFileSync(resolve(root, PACKAGED), rebaseToRoot(readFileSync(resolve(root, SOURCE), 'utf8')));
    return PACKAGED;
}
