/** The results archive of a job: a ZIP of its output tree, streamed as it is written. */
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { listFiles, listRegularFiles, openRegularFile, type ListedFile } from './files.js';

/** Files that are already compressed and are stored as they are. */
const STORED = /\.(tif|tiff|zip|gz|png|jpg|jpeg|nc|nc4|h5)$/i;

/** Output files of a job (relative paths), or [] when there are none. */
export function resultFiles(outputDir: string): Promise<string[]> {
  return listFiles(outputDir);
}

/** Output files of a job as listed for the archive (regular files only; links are left out). */
export function resultEntries(outputDir: string): Promise<ListedFile[]> {
  return listRegularFiles(outputDir);
}

export interface ZipDownload {
  readonly stream: NodeJS.ReadableStream;
  /** Final size of the archive [bytes] when it is known in advance (every file stored), else null. */
  readonly size: Promise<number | null>;
}

/**
 * The ZIP holding `files` (listed under `outputDir`) under their relative paths, as a stream. GeoTIFFs and
 * other compressed formats are stored without recompression; the rest is deflated. Each file is opened
 * only when its turn comes, without following links, and must still be the file that was listed; a file
 * that was swapped for anything else ends the archive with an error. `extra` entries (made by the service,
 * e.g. the STAC Items) come first.
 */
export function zipStream(outputDir: string, files: readonly ListedFile[], extra: readonly { name: string; bytes: Buffer }[] = []): ZipDownload {
  const zip = new ZipFile();
  // stored, so that the archive's size stays known in advance (Content-Length) when every file is stored
  for (const { name, bytes } of extra) zip.addBuffer(bytes, name, { compress: false, mtime: new Date() });
  let failed = false;
  zip.on('error', (error: Error) => {
    failed = true;
    (zip.outputStream as NodeJS.ReadableStream & { destroy(e: Error): void }).destroy(error);
  });
  for (const { rel, stats } of files) {
    const options = { compress: !STORED.test(rel), size: stats.size, mtime: stats.mtime, mode: stats.mode };
    zip.addReadStreamLazy(rel, options, (callback) => {
      openRegularFile(join(outputDir, rel), stats).then(
        ({ handle }) => callback(null, handle.createReadStream()),
        (error: Error) => callback(error, undefined as never),
      );
    });
  }
  const size = new Promise<number | null>((resolve) => {
    zip.end(undefined, ((total: number) => resolve(total >= 0 && !failed ? total : null)) as () => void);
    zip.once('error', () => resolve(null));
  });
  return { stream: zip.outputStream, size };
}
