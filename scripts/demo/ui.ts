import { createInterface, type Interface } from 'node:readline';

type Paint = (text: string) => string;

/** ANSI colours, only when stdout is a terminal and NO_COLOR is unset. */
export function palette(enabled: boolean) {
    const sgr =
        (open: number, close: number): Paint =>
        text =>
            enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
    return {
        bold: sgr(1, 22),
        dim: sgr(2, 22),
        red: sgr(31, 39),
        green: sgr(32, 39),
        yellow: sgr(33, 39),
        blue: sgr(34, 39),
        magenta: sgr(35, 39),
        cyan: sgr(36, 39),
    };
}

export type Palette = ReturnType<typeof palette>;

/**
 * The demo's terminal: prints, pauses for Enter, and asks questions. While it waits for the
 * user, lines from the wire (notifications that arrive meanwhile) are held back and printed
 * afterwards, so they never land in the middle of a prompt.
 */
export class Terminal {
    readonly paint: Palette;
    private held: string[] | undefined;
    private readonly rl?: Interface;
    private readonly typed: string[] = [];
    private waiting?: (line: string) => void;
    private inputClosed = false;

    constructor(readonly interactive: boolean) {
        this.paint = palette(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
        if (interactive) {
            this.rl = createInterface({ input: process.stdin });
            this.rl.on('line', line => this.deliver(line));
            this.rl.on('close', () => {
                this.inputClosed = true;
                this.deliver('');
            });
        }
    }

    /** One line of output; held back while the user is being asked something. */
    print(text = ''): void {
        if (this.held) {
            this.held.push(text);
        } else {
            process.stdout.write(`${text}\n`);
        }
    }

    heading(number: number, title: string): void {
        this.print();
        this.print(this.paint.bold(this.paint.cyan(`━━ Step ${number}: ${title} ━━`)));
    }

    note(text: string): void {
        this.print(`  ${this.paint.dim(text)}`);
    }

    /** A shell command the reader can paste; continuation lines are indented. */
    command(label: string, text: string): void {
        this.print(`  ${this.paint.dim(`${label}:`)}`);
        for (const line of text.split('\n')) {
            this.print(`    ${this.paint.yellow(line)}`);
        }
    }

    /** Waits for Enter (interactive only). */
    async pause(next: string): Promise<void> {
        if (!this.interactive) {
            return;
        }
        await this.ask(this.paint.dim(`\n  ⏎  Press Enter for ${next} `));
    }

    /** Asks a question and returns the answer; '' once stdin has ended. */
    async ask(prompt: string): Promise<string> {
        if (!this.interactive) {
            return '';
        }
        this.held ??= [];
        process.stdout.write(prompt);
        const answer = this.typed.shift() ?? (this.inputClosed ? '' : await new Promise<string>(resolve => (this.waiting = resolve)));
        if (!process.stdin.isTTY) {
            process.stdout.write('\n'); // piped input is not echoed
        }
        const held = this.held;
        this.held = undefined;
        if (held.length > 0) {
            this.print(`  ${this.paint.dim('(arrived while waiting for you:)')}`);
            held.forEach(line => this.print(line));
        }
        return answer.trim();
    }

    close(): void {
        this.rl?.close();
    }

    private deliver(line: string): void {
        const waiting = this.waiting;
        this.waiting = undefined;
        if (waiting) {
            waiting(line);
        } else if (!this.inputClosed) {
            this.typed.push(line);
        }
    }
}
