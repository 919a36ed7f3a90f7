/** The results archive of a job: a ZIP of its output tree, streamed as it is written. */
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { listFiles } from './files.js';

/** Files that are already compressed and are stored as they are. */
const STORED = /\.(tif|tiff|zip|gz|png|jpg|jpeg|nc|nc4|h5)$/i;

/** Output files of a job (relative paths), or [] when there are none. */
export function resultFiles(outputDir: string): Promise<string[]> {
  return listFiles(outputDir);
}

export interface ZipDownload {
  readonly stream: NodeJS.ReadableStream;
  /** Final size of the archive [bytes] when it is known in advance (every file stored), else null. */
  readonly size: Promise<number | null>;
}

/**
 * The ZIP holding `files` (relative to `outputDir`) under their relative paths, as a stream.
 * GeoTIFFs and other compressed formats are stored without recompression; the rest is deflated.
 * Files are read one at a time while the stream is consumed; nothing is built in memory.
 */
export function zipStream(outputDir: string, files: readonly string[]): ZipDownload {
  const zip = new ZipFile();
  let failed = false;
  zip.on('error', (error: Error) => {
    failed = true;
    (zip.outputStream as NodeJS.ReadableStream & { destroy(e: Error): void }).destroy(error);
  });
  for (const rel of files) zip.addFile(join(outputDir, rel), rel, { compress: !STORED.test(rel) });
  const size = new Promise<number | null>((resolve) => {
    zip.end(undefined, ((total: number) => resolve(total >= 0 && !failed ? total : null)) as () => void);
    zip.once('error', () => resolve(null));
  });
  return { stream: zip.outputStream, size };
}
