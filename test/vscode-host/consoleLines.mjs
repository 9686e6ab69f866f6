// Turns browser console messages into readable runner output. The extension
// host's console (mocha's reporter included) reaches us only this way: the
// workbench re-logs it as `console.log('%c[Extension Host] %c<text> %c(<frame>)', css...)`.

/** Removes `%c` directives and the CSS arguments they consume. */
function stripCss(values) {
	if (typeof values[0] !== 'string' || !values[0].includes('%c')) {
		return { parts: [String(values[0] ?? '')], rest: values.slice(1) };
	}
	const parts = values[0].split('%c');
	return { parts, rest: values.slice(parts.length) };
}

export function formatConsoleValues(type, values) {
	const { parts, rest } = stripCss(values);
	const restText = rest.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ');
	const label = parts[1]?.match(/^\[([^\]]+)\] $/)?.[1];
	if (label) {
		// parts: ['', '[Extension Host] ', '<text> ', '(<frame>)']. The frame only says
		// which file called console.log: noise on every mocha line, so it is dropped.
		const text = parts.length === 4 ? parts[2].replace(/ $/, '') : parts.slice(2).join('');
		const tag = label === 'Extension Host' ? 'exthost' : label;
		return `[${tag}${type === 'log' || type === 'info' ? '' : `:${type}`}] ${[text, restText].filter(Boolean).join(' ')}`;
	}
	return `[browser:${type}] ${[parts.join(''), restText].filter(Boolean).join(' ')}`;
}

/** Reads a Playwright ConsoleMessage; argument values can vanish if the page navigates. */
export async function formatConsoleMessage(message) {
	let values;
	try {
		values = await Promise.all(message.args().map((arg) => arg.jsonValue()));
	} catch {
		values = [message.text()];
	}
	return formatConsoleValues(message.type(), values);
}
