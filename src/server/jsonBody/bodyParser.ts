/**
 * The one content-type parser of JSON bodies, for every route: the body is read chunk by chunk as it arrives and
 * fed to the bounded scanner, so a body that breaks a bound (or the route's body limit) is refused after the chunk
 * that broke it — 400 naming the bound, 413 for sizes — and the rest of it is never read: Fastify answers a parser's
 * error with `Connection: close`. Each chunk is a short step (a socket delivers at most 64 KiB at a time), so no
 * body holds the event loop, whatever its size. Routes set their bounds and inline files in their config
 * (`config.jsonBody`); every other route has DEFAULT_JSON_BOUNDS. Errors reach the route's error handler, so they
 * come in its format (`{detail}`, or an OGC exception document under /ogc).
 */
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.js';
import { DEFAULT_JSON_BOUNDS, type JsonBounds } from './bounds.js';
import { Base64FileSink, InlineFile, type InlineFileOptions } from './inlineFile.js';
import { BoundedJsonScanner, type StreamedStrings } from './scanner.js';

export interface JsonBodyOptions {
  /** Bounds that differ from DEFAULT_JSON_BOUNDS. */
  readonly bounds?: Partial<JsonBounds>;
  /** The route's inline files (base64 strings decoded into files while the body arrives). */
  readonly inlineFiles?: InlineFileOptions;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's JSON bodies are read (src/server/jsonBody). */
    jsonBody?: JsonBodyOptions;
  }
}

/**
 * The inline files of a request's body until it is answered: then the ones its route did not claim are removed
 * (before the answer is sent, so a client that was refused finds no file; or when the connection closes first).
 */
class RequestFiles {
  private readonly files: InlineFile[] = [];
  private closed = false;

  constructor(private readonly log: (error: unknown) => void) {}

  add(file: InlineFile): void {
    this.files.push(file);
    if (this.closed) void this.discard(file);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.files.map((file) => this.discard(file)));
  }

  private discard(file: InlineFile): Promise<void> {
    return file.discardUnclaimed().catch(this.log);
  }
}

const requestFiles = new WeakMap<IncomingMessage, RequestFiles>();

/** Bytes of a chunk the scanner takes at a time. */
const SLICE_BYTES = 8 * 1024;

function tooLarge(): Error {
  return new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
}

/**
 * Reads `payload` into `scanner`, at most `limit` bytes, one chunk per turn of the event loop. Waits for the inline
 * file before the next chunk when its writes are backed up. On an error it stops reading (the stream stays paused)
 * and rejects.
 */
function readInto(payload: IncomingMessage, scanner: BoundedJsonScanner, limit: number, file: () => Base64FileSink | null): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', onError);
      payload.off('close', onClose);
      if (error === undefined) return resolve();
      payload.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return finish(tooLarge());
      try {
        // In slices: a body that breaks a bound is refused after the slice that broke it, before the rest of a
        // 64 KiB chunk is tokenized (tens of thousands of tokens, slow while the tokenizer is not yet optimized).
        for (let at = 0; at < chunk.length; at += SLICE_BYTES) scanner.write(chunk.subarray(at, at + SLICE_BYTES));
      } catch (error) {
        return finish(error);
      }
      // The next chunk waits for the next turn of the event loop (Node reads up to 32 chunks of a busy socket in
      // one go), and for the inline file when its writes are backed up.
      payload.pause();
      const sink = file();
      if (sink?.mustWait) sink.writable().then(() => setImmediate(resume), finish);
      else setImmediate(resume);
    };
    const resume = () => settled || payload.resume();
    const onEnd = () => finish();
    const onError = (error: Error) => finish(Object.assign(error, { statusCode: 400 }));
    const onClose = () => finish(new HttpError(400, 'The request was closed before its body was complete'));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.on('close', onClose);
    payload.resume();
  });
}

async function parseJsonBody(request: FastifyRequest, payload: IncomingMessage): Promise<unknown> {
  const { bodyLimit, config } = request.routeOptions;
  const options = config.jsonBody;
  if (Number(request.headers['content-length']) > bodyLimit) throw tooLarge();
  const sinks: Base64FileSink[] = [];
  const inlineFiles = options?.inlineFiles;
  const streamed: StreamedStrings | undefined = inlineFiles && {
    at: inlineFiles.at,
    open: () => {
      const sink = new Base64FileSink(inlineFiles);
      sinks.push(sink);
      return sink;
    },
  };
  const scanner = new BoundedJsonScanner({ ...DEFAULT_JSON_BOUNDS, ...options?.bounds }, streamed);
  try {
    await readInto(payload, scanner, bodyLimit, () => sinks[sinks.length - 1] ?? null);
    const body = scanner.end();
    for (const sink of sinks) {
      const file = await sink.close();
      if (file) requestFiles.get(request.raw)?.add(file);
    }
    return body;
  } catch (error) {
    await Promise.all(sinks.map((sink) => sink.discard().catch((e: unknown) => request.log.error({ err: e }, 'removing an inline file'))));
    throw error;
  }
}

/** Installs the JSON body parser, and the removal of unclaimed inline files once a request is answered. */
export function installJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request: FastifyRequest, payload: IncomingMessage) => parseJsonBody(request, payload));
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.jsonBody?.inlineFiles) {
      const files = new RequestFiles((error) => request.log.error({ err: error }, 'removing an inline file'));
      requestFiles.set(request.raw, files);
      reply.raw.once('close', () => void files.close());
    }
    done();
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    await requestFiles.get(request.raw)?.close();
    return payload;
  });
}
