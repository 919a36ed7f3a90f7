/**
 * An incremental JSON parser with bounds: fed a request body chunk by chunk as it arrives, it builds the value
 * and refuses the body as soon as a chunk breaks a bound (depth, keys per object, items per array, string length,
 * values, total text; see bounds.ts), so no step holds the event loop for longer than one chunk takes.
 *
 * Tokens come from stream-json's tokenizer (keys, strings and numbers arrive in pieces, so none is ever held
 * longer than its bound allows); the value is built here the way `JSON.parse` builds it (a repeated key keeps
 * its last value; `__proto__` is an own property). A string at one of the `streamed` places (an inline file) is
 * not held: its pieces go to a sink, and what the sink ends with takes the string's place in the value.
 * A body of white space only is `null` (no body).
 */
import { StringDecoder } from 'node:string_decoder';
import { getManyValues, none, type Many } from 'stream-chain/defs.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { HttpError } from '../errors.js';
import { boundBroken, NOT_JSON, type JsonBounds, type JsonPath } from './bounds.js';

/** Where a streamed string's pieces go. */
export interface StringSink {
  /** The next piece of the string (JSON escapes decoded). */
  write(text: string): void;
  /** The string is complete: the value that takes its place. */
  end(): unknown;
}

/** The places whose strings are streamed to a sink instead of held (at most one such string per body). */
export interface StreamedStrings {
  readonly at: readonly (readonly string[])[];
  open(path: JsonPath): StringSink;
}

interface Frame {
  readonly container: Record<string, unknown> | unknown[];
  readonly isArray: boolean;
  /** Keys or items so far. */
  count: number;
  /** The key whose value comes next (objects). */
  key: string;
}

type Lexeme = 'key' | 'string' | 'number';

/** White space as `String.prototype.trim` drops it around a body (JSON's own, and Unicode's, and U+FEFF). */
const SPACE = /[\s\uFEFF]/;
/** Most trailing white space held back from the tokenizer until more text follows [characters]. */
const MAX_HELD_SPACE = 64 * 1024;

function isWhiteSpaceOnly(text: string): boolean {
  return /^[\s\uFEFF]*$/.test(text);
}

/** Where the white space at the end of `text` starts (`text.length` when there is none; -1 when over `limit`). */
function trailingSpaceStart(text: string, limit: number): number {
  let at = text.length;
  while (at > 0 && SPACE.test(text.charAt(at - 1))) {
    if (text.length - --at > limit) return -1;
  }
  return at;
}

function setProperty(object: Record<string, unknown>, key: string, value: unknown): void {
  // As JSON.parse: an own property, also for "__proto__" (an assignment would set the prototype).
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

export class BoundedJsonScanner {
  /** Text in, tokens out; `none` flushes the end. Keys, strings and numbers come in pieces (nothing packed). */
  private readonly tokenize = jsonParser({ packValues: false, streamValues: true }) as (text: string | typeof none) => Many<Token> | typeof none;
  private readonly decoder = new StringDecoder('utf8');
  private readonly stack: Frame[] = [];
  private root: unknown = undefined;
  private sawContent = false;
  private heldSpace = '';
  private values = 0;
  private textLength = 0;
  private lexeme: Lexeme | null = null;
  private parts: string[] = [];
  private lexemeLength = 0;
  private sink: StringSink | null = null;
  private streamedOnce = false;

  constructor(
    private readonly bounds: JsonBounds,
    private readonly streamed?: StreamedStrings,
  ) {}

  /** The next bytes of the body. Throws an HttpError when the body is not JSON or breaks a bound. */
  write(chunk: Buffer): void {
    this.feed(this.decoder.write(chunk), false);
  }

  /** The body is complete: its value (null for an empty body). */
  end(): unknown {
    this.feed(this.decoder.end(), true);
    if (!this.sawContent) return null;
    return this.root;
  }

  private feed(text: string, last: boolean): void {
    if (!this.sawContent) {
      // Leading white space (and a byte-order mark) is dropped: a body of nothing else is no body.
      if (isWhiteSpaceOnly(text)) return;
      text = text.trimStart();
      this.sawContent = true;
    }
    // So is trailing white space, which JSON's grammar alone would refuse where it is not JSON's (U+00A0 …): it is
    // held back until more text follows (up to a bound), and dropped at the end.
    text = this.heldSpace + text;
    this.heldSpace = '';
    const spaceStart = trailingSpaceStart(text, last ? Infinity : MAX_HELD_SPACE);
    if (spaceStart >= 0) {
      if (!last) this.heldSpace = text.slice(spaceStart);
      text = text.slice(0, spaceStart);
    }
    this.handleAll(this.tokens(text));
    if (last) this.handleAll(this.tokens(none));
  }

  /** The tokens of the next text (or of the end); the tokenizer's errors all mean the text is not JSON. */
  private tokens(text: string | typeof none): readonly Token[] {
    let tokens: Many<Token> | typeof none;
    try {
      tokens = this.tokenize(text);
    } catch {
      throw new HttpError(400, NOT_JSON);
    }
    return tokens === none ? [] : getManyValues(tokens);
  }

  private handleAll(tokens: readonly Token[]): void {
    for (const token of tokens) this.handle(token);
  }

  private handle(token: Token): void {
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.openContainer(token.name === 'startArray');
        return;
      case 'endObject':
      case 'endArray':
        this.stack.pop();
        return;
      case 'startKey':
        this.startKey();
        return;
      case 'endKey':
        this.top().key = this.takeText();
        return;
      case 'startString':
        this.startString();
        return;
      case 'endString':
        this.place(this.sink ? this.endSink() : this.takeText());
        return;
      case 'startNumber':
        this.beginValue();
        this.lexeme = 'number';
        return;
      case 'endNumber':
        this.place(Number(this.takeText()));
        return;
      case 'stringChunk':
      case 'numberChunk':
        if (this.sink) this.sink.write(token.value);
        else this.append(token.value);
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.beginValue();
        this.place(token.value);
        return;
      default:
        // Packed values and white space are never asked for.
        throw new Error(`unexpected JSON token ${token.name}`);
    }
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  /** The path of the value at `depth` (0: the document; `stack.length`: the value being read now). */
  private pathTo(depth: number): (string | number)[] {
    const path: (string | number)[] = [];
    for (let i = 0; i < depth; i++) {
      const frame = this.stack[i]!;
      path.push(frame.isArray ? frame.count - 1 : frame.key);
    }
    return path;
  }

  /** Counts a value that starts here, and the item it is in its array. */
  private beginValue(): void {
    const { maxValues, maxItems } = this.bounds;
    const frame = this.stack[this.stack.length - 1];
    if (frame?.isArray && ++frame.count > maxItems) throw boundBroken(`an array has more than ${maxItems} items`, this.pathTo(this.stack.length - 1));
    if (++this.values > maxValues) throw boundBroken(`more than ${maxValues} values`, this.pathTo(this.stack.length));
  }

  private place(value: unknown): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) this.root = value;
    else if (frame.isArray) (frame.container as unknown[]).push(value);
    else setProperty(frame.container as Record<string, unknown>, frame.key, value);
  }

  private openContainer(isArray: boolean): void {
    this.beginValue();
    const { maxDepth } = this.bounds;
    if (this.stack.length >= maxDepth) throw boundBroken(`nested deeper than ${maxDepth} levels`, this.pathTo(this.stack.length));
    const container = isArray ? [] : {};
    this.place(container);
    this.stack.push({ container, isArray, count: 0, key: '' });
  }

  private startKey(): void {
    const frame = this.top();
    const { maxKeys } = this.bounds;
    if (++frame.count > maxKeys) throw boundBroken(`an object has more than ${maxKeys} keys`, this.pathTo(this.stack.length - 1));
    this.lexeme = 'key';
  }

  private startString(): void {
    this.beginValue();
    const streamed = this.streamed;
    if (streamed && this.stack.length > 0) {
      const path = this.pathTo(this.stack.length);
      if (streamed.at.some((at) => at.length === path.length && at.every((part, i) => part === path[i]))) {
        if (this.streamedOnce) throw boundBroken('a second inline file', path);
        this.streamedOnce = true;
        this.sink = streamed.open(path);
        return;
      }
    }
    this.lexeme = 'string';
  }

  private endSink(): unknown {
    const sink = this.sink!;
    this.sink = null;
    return sink.end();
  }

  /** A piece of the key, string or number being read, within the bounds of its length and of all text. */
  private append(piece: string): void {
    const { maxStringLength, maxTextLength } = this.bounds;
    this.lexemeLength += piece.length;
    this.textLength += piece.length;
    if (this.lexemeLength > maxStringLength) {
      const what = this.lexeme === 'key' ? 'a key' : this.lexeme === 'number' ? 'a number' : 'a string';
      const depth = this.lexeme === 'key' ? this.stack.length - 1 : this.stack.length;
      throw boundBroken(`${what} is longer than ${maxStringLength} characters`, this.pathTo(depth));
    }
    if (this.textLength > maxTextLength) {
      throw boundBroken(`its strings, keys and numbers add up to more than ${maxTextLength} characters`, this.pathTo(this.stack.length), 413);
    }
    this.parts.push(piece);
  }

  private takeText(): string {
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    this.lexemeLength = 0;
    this.lexeme = null;
    return text;
  }
}
