// The file name an output document's tab shows. Two runs of one command would otherwise share a
// title ("long_build.log" twice): the name carries the time the run started, and a number when two
// runs started in the same second. vscode-free, so unit tests reach it.

/** `label` as a file name: anything but letters, digits, `.` and `-` becomes `_`. */
function fileSafe(label: string): string {
    return label.replace(/[^\w.-]+/g, '_');
}

/** HH.MM.SS of `iso` in local time, or undefined when it is not a time. */
function localTime(iso: string): string | undefined {
    const at = new Date(iso);
    if (Number.isNaN(at.getTime())) {
        return undefined;
    }
    return [at.getHours(), at.getMinutes(), at.getSeconds()].map(n => String(n).padStart(2, '0')).join('.');
}

/**
 * The output document's file name for a run labelled `label` that started at `createdAt`
 * ("long_build 14.02.11.log"); `taken` holds the names of other runs' open documents.
 * Dots, not colons, in the time: a colon is not allowed in a file name on Windows, and Save As starts from this name.
 */
export function outputFileName(label: string, createdAt: string, taken: ReadonlySet<string>): string {
    const time = localTime(createdAt);
    const base = time ? `${fileSafe(label)} ${time}` : fileSafe(label);
    let name = `${base}.log`;
    for (let n = 2; taken.has(name); n++) {
        name = `${base} (${n}).log`;
    }
    return name;
}
