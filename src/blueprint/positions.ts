/**
 * Where each key of a TOML document was written. smol-toml returns plain
 * values without positions, so this light scanner walks the (already
 * parsed, hence valid) text once more and records the line and column of
 * every key, table header and inline-table member. It never throws: on
 * anything unexpected it returns what it found so far.
 */

export interface Position {
  line: number;
  column: number;
}

interface PositionNode {
  pos?: Position;
  children?: Map<string, PositionNode>;
}

/**
 * Positions by key path, kept as a tree of path segments: recording or
 * looking up a path of n segments takes n steps, so a header nested
 * thousands of tables deep (whose every parent is recorded too) costs what
 * its length does, not its length squared.
 */
export class PositionIndex {
  private readonly root: PositionNode = {};

  /** Where `segments` was first written (numbers are array elements). */
  get(segments: readonly (string | number)[]): Position | undefined {
    let node: PositionNode | undefined = this.root;
    for (const segment of segments) node = node?.children?.get(String(segment));
    return node?.pos;
  }

  /** The position of the longest leading part of `segments` that was written, if any. */
  nearest(segments: readonly (string | number)[]): Position | undefined {
    let node: PositionNode | undefined = this.root;
    let found: Position | undefined;
    for (const segment of segments) {
      node = node.children?.get(String(segment));
      if (!node) break;
      found = node.pos ?? found;
    }
    return found;
  }

  /** Records `segments` at `pos` unless an earlier mention did; with `prefixes`, each leading part of it too. */
  record(segments: readonly string[], pos: Position, prefixes = false): void {
    let node = this.root;
    for (let i = 0; i < segments.length; i += 1) {
      const segment = segments[i] ?? '';
      node.children ??= new Map();
      let child = node.children.get(segment);
      if (!child) {
        child = {};
        node.children.set(segment, child);
      }
      node = child;
      if (prefixes || i === segments.length - 1) node.pos ??= pos;
    }
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/;

class Scanner {
  i = 0;
  line = 1;
  lineStart = 0;
  readonly index = new PositionIndex();
  private readonly arrayTableCounts = new Map<string, number>();

  constructor(private readonly text: string) {}

  run(): void {
    let table: string[] = [];
    while (this.i < this.text.length) {
      this.skipSpaceAndComments(true);
      if (this.i >= this.text.length) return;
      const c = this.text[this.i];
      if (c === '[') {
        const isArray = this.text[this.i + 1] === '[';
        const pos = this.pos();
        this.i += isArray ? 2 : 1;
        const segments = this.readKey();
        this.i += isArray ? 2 : 1;
        if (isArray) {
          const k = JSON.stringify(segments);
          const n = this.arrayTableCounts.get(k) ?? 0;
          this.arrayTableCounts.set(k, n + 1);
          this.index.record(segments, pos);
          table = [...segments, String(n)];
        } else {
          table = segments;
        }
        // Parent tables a header defines implicitly are located at their first mention.
        this.index.record(table, pos, true);
        continue;
      }
      this.keyValue(table);
    }
  }

  private pos(): Position {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }

  private newline(): void {
    this.line += 1;
    this.lineStart = this.i + 1;
  }

  private skipSpaceAndComments(newlines: boolean): void {
    while (this.i < this.text.length) {
      const c = this.text[this.i];
      if (c === ' ' || c === '\t' || c === '\r') this.i += 1;
      else if (c === '\n' && newlines) {
        this.newline();
        this.i += 1;
      } else if (c === '#') {
        while (this.i < this.text.length && this.text[this.i] !== '\n') this.i += 1;
      } else return;
    }
  }

  /** A dotted key, stopping before `=` or `]`. */
  private readKey(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipSpaceAndComments(false);
      parts.push(this.readKeyPart());
      this.skipSpaceAndComments(false);
      if (this.text[this.i] !== '.') return parts;
      this.i += 1;
    }
  }

  private readKeyPart(): string {
    const c = this.text[this.i];
    if (c === '"' || c === "'") return this.readString();
    const start = this.i;
    while (this.i < this.text.length && BARE_KEY.test(this.text[this.i] ?? '')) this.i += 1;
    if (this.i === start) throw new Error('unexpected character in key');
    return this.text.slice(start, this.i);
  }

  private readString(): string {
    const quote = this.text[this.i] ?? '"';
    const triple = this.text.startsWith(quote.repeat(3), this.i);
    const delimiter = triple ? quote.repeat(3) : quote;
    const start = this.i;
    this.i += delimiter.length;
    while (this.i < this.text.length) {
      const c = this.text[this.i];
      if (c === '\\' && quote === '"') {
        this.i += 2;
        continue;
      }
      if (c === '\n') this.newline();
      if (this.text.startsWith(delimiter, this.i)) {
        // A multi-line string may end with up to two extra quotes.
        let end = this.i + delimiter.length;
        if (triple) while (this.text[end] === quote && end - this.i < 5) end += 1;
        const raw = this.text.slice(start, end);
        this.i = end;
        return decodeString(raw, quote, delimiter.length);
      }
      this.i += 1;
    }
    throw new Error('unterminated string');
  }

  private keyValue(table: string[]): void {
    const pos = this.pos();
    const key = [...table, ...this.readKey()];
    this.index.record(key, pos);
    this.skipSpaceAndComments(false);
    if (this.text[this.i] !== '=') throw new Error('expected =');
    this.i += 1;
    this.skipSpaceAndComments(false);
    this.value(key);
  }

  private value(path: string[]): void {
    const c = this.text[this.i];
    if (c === '"' || c === "'") {
      this.readString();
    } else if (c === '{') {
      this.i += 1;
      for (;;) {
        this.skipSpaceAndComments(true);
        if (this.text[this.i] === '}') {
          this.i += 1;
          return;
        }
        if (this.text[this.i] === ',') {
          this.i += 1;
          continue;
        }
        this.keyValue(path);
      }
    } else if (c === '[') {
      this.i += 1;
      let n = 0;
      for (;;) {
        this.skipSpaceAndComments(true);
        if (this.i >= this.text.length) throw new Error('unterminated array');
        if (this.text[this.i] === ']') {
          this.i += 1;
          return;
        }
        if (this.text[this.i] === ',') {
          this.i += 1;
          continue;
        }
        const elementPath = [...path, String(n)];
        this.index.record(elementPath, this.pos());
        this.value(elementPath);
        n += 1;
      }
    } else {
      const start = this.i;
      while (this.i < this.text.length && !',]}\n#'.includes(this.text[this.i] ?? '')) this.i += 1;
      if (this.i === start) throw new Error('empty value');
    }
  }
}

function decodeString(raw: string, quote: string, delimiterLength: number): string {
  const body = raw.slice(delimiterLength, raw.length - delimiterLength);
  if (quote === "'") return body;
  try {
    return JSON.parse(`"${body.replace(/\n/g, '\\n')}"`) as string;
  } catch {
    return body;
  }
}

/** Positions of every key in `text`; partial when the scanner meets something it does not follow. */
export function indexPositions(text: string): PositionIndex {
  const scanner = new Scanner(text);
  try {
    scanner.run();
  } catch {
    // A partial index still locates most findings; positions are a convenience.
  }
  return scanner.index;
}
