/**
 * Inline files of JSON bodies (an OGC execution's DEM, base64 in `inputs.dem`): decoded while the body arrives,
 * piece by piece, straight into a file in the place the route stages it, so the file is never held in memory
 * (a 100 MB DEM is a 134 MB string). The route claims the file from the parsed body; a file it does not claim
 * (a refused request, another process, an error) is removed when the answer is sent or the connection closes.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { HttpError } from '../errors.js';
import { Base64Decoder, NotBase64Error } from './base64Decoder.js';
import type { StringSink } from './scanner.js';

/** Where an inline file is written, as the route stages it. */
export interface FileStaging {
  /** The route's name for it (the OGC route: the job id it reserved for the file). */
  readonly id: string;
  /** The file; its folder is created with the file. */
  readonly path: string;
  /** Removes the file and whatever the route made for it. */
  discard(): Promise<void>;
}

/** A route's inline files: where they are in the body, their size limit and refusals, and where they go. */
export interface InlineFileOptions {
  /** Paths of the strings that are inline files (e.g. `['inputs', 'dem']`); at most one per body. */
  readonly at: readonly (readonly string[])[];
  /** Largest decoded file [bytes]: 413 with `tooLarge` beyond. */
  readonly maxBytes: number;
  /** `detail` of the 400 for a string that is not base64. */
  readonly notBase64: string;
  /** `detail` of the 413 for a file over `maxBytes`. */
  readonly tooLarge: string;
  /** Stages a new file. */
  stage(): FileStaging;
}

/** The value an inline file's string becomes in the parsed body. */
export class InlineFile {
  private state: 'staged' | 'claimed' | 'discarded' = 'staged';

  constructor(
    /** The decoded file. */
    readonly path: string,
    /** Its size [bytes]. */
    readonly bytes: number,
    private readonly staging: FileStaging,
  ) {}

  /** The route takes the file over (and must remove it itself when the request fails). */
  claim(): FileStaging {
    if (this.state === 'discarded') throw new HttpError(400, 'The request was closed before it was answered');
    this.state = 'claimed';
    return this.staging;
  }

  /** Removes the file unless the route claimed it. */
  async discardUnclaimed(): Promise<void> {
    if (this.state !== 'staged') return;
    this.state = 'discarded';
    await this.staging.discard();
  }
}

/** The sink of an inline file's string: base64 decoded into the staged file, with the writes' backpressure. */
export class Base64FileSink implements StringSink {
  private readonly decoder = new Base64Decoder();
  private readonly staging: FileStaging;
  private written = 0;
  private stream: WriteStream | null = null;
  private queued: Buffer[] = [];
  private failure: unknown = null;
  private readonly opened: Promise<void>;
  private file: InlineFile | null = null;

  constructor(private readonly options: InlineFileOptions) {
    this.staging = options.stage();
    this.opened = mkdir(dirname(this.staging.path), { recursive: true }).then(() => {
      const stream = createWriteStream(this.staging.path, { highWaterMark: 1024 * 1024 });
      stream.on('error', (error) => (this.failure ??= error));
      for (const chunk of this.queued) stream.write(chunk);
      this.queued = [];
      this.stream = stream;
    });
    this.opened.catch((error: unknown) => (this.failure ??= error));
  }

  write(text: string): void {
    if (this.failure) throw this.failure;
    this.keep(this.decoded(() => this.decoder.push(text)));
  }

  end(): InlineFile {
    this.keep(this.decoded(() => this.decoder.end()));
    this.file = new InlineFile(this.staging.path, this.written, this.staging);
    return this.file;
  }

  /** Whether the body must wait for the file before its next chunk (not open yet, or writes backed up). */
  get mustWait(): boolean {
    return this.failure !== null || this.stream === null || this.stream.writableNeedDrain;
  }

  /** Resolves when the file can take more (rejects when it failed). */
  async writable(): Promise<void> {
    await this.opened;
    if (this.failure) throw this.failure;
    if (this.stream!.writableNeedDrain) await once(this.stream!, 'drain');
  }

  /** The body is complete: every byte is in the file. Returns the file (null if its string never ended). */
  async close(): Promise<InlineFile | null> {
    await this.opened;
    if (this.failure) throw this.failure;
    const stream = this.stream!;
    stream.end();
    await finished(stream);
    return this.file;
  }

  /** The body failed: the file and its staging are removed. */
  async discard(): Promise<void> {
    await this.opened.catch(() => undefined);
    if (this.stream && !this.stream.closed) {
      this.stream.destroy();
      await finished(this.stream).catch(() => undefined);
    }
    await this.staging.discard();
  }

  private decoded(decode: () => Buffer): Buffer {
    try {
      return decode();
    } catch (error) {
      throw error instanceof NotBase64Error ? new HttpError(400, this.options.notBase64) : error;
    }
  }

  /** Hands decoded bytes to the file, within the size limit. */
  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.written += bytes.length;
    if (this.written > this.options.maxBytes) throw new HttpError(413, this.options.tooLarge);
    if (this.stream) this.stream.write(bytes);
    else this.queued.push(bytes);
  }
}
