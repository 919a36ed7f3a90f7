/** A Server-Sent Events client over fetch for tests: parses the stream into events and comment lines. */

export interface SseEvent {
  readonly id: string | null;
  readonly event: string;
  readonly data: any;
}

export interface SseStream {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  readonly comments: string[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Resolves with the first event (or comment, for `comment`) that `match` accepts, or rejects after `timeoutMs`. */
  waitFor(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  waitForComment(match: (c: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const w of [...wakers]) w();
  };
  let done = false;
  const ended = (async () => {
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | null = null;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trim());
          }
          if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join('\n')) });
          wake();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wake();
    }
  })();

  function until<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) finish(() => resolve(found));
        else if (done) finish(() => reject(new Error(`stream ended without ${what}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
      const finish = (then: () => void) => {
        clearTimeout(timer);
        wakers.delete(check);
        then();
      };
      wakers.add(check);
      check();
    });
  }

  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    ended,
    waitFor: (match, timeoutMs = 20_000) => until(() => events.find(match), 'the event', timeoutMs),
    waitForComment: (match, timeoutMs = 20_000) => until(() => comments.find(match), 'the comment', timeoutMs),
    close: () => abort.abort(),
  };
}
