/** The results archive of a job: a ZIP of its output tree, streamed as it is written. */
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { listFiles, listRegularFiles, openRegularFile, type ListedFile } from '../store/files.js';

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
 * e.g. the STAC Items) come first, dated `extraTime`; the same files and extras always give the same bytes.
 */
export function zipStream(
  outputDir: string,
  files: readonly ListedFile[],
  extra: readonly { name: string; bytes: Buffer }[] = [],
  extraTime: Date = new Date(0),
): ZipDownload {
  const zip = new ZipFile();
  // stored, so that the archive's size stays known in advance (Content-Length) when every file is stored
  for (const { name, bytes } of extra) zip.addBuffer(bytes, name, { compress: false, mtime: extraTime });
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
  const names = [...extra.map((e) => e.name), ...files.map((f) => f.rel)];
  const size = new Promise<number | null>((resolve) => {
    zip.end(undefined, ((total: number) => resolve(total >= 0 && !failed ? total - yazlZip64Overcount(names, total) : null)) as () => void);
    zip.once('error', () => resolve(null));
  });
  return { stream: zip.outputStream, size };
}

/** Bytes of the ZIP64 end-of-central-directory record and locator. */
const ZIP64_EOCD_BYTES = 56 + 20;

/**
 * What yazl's predicted archive size counts too much: yazl 3 adds the ZIP64 end records to its prediction
 * when the central directory reaches 64 KiB (`centralDirectorySize >= 0xffff`), but writes them only for
 * 65 535 entries or more, or beyond 4 GiB (`>= 0xffffffff`). A year of `sol` products (742 files) crosses
 * 64 KiB, and a Content-Length 76 bytes too large makes clients see a cut-off download.
 */
function yazlZip64Overcount(names: readonly string[], predictedTotal: number): number {
  // a central directory entry as yazl writes it: 46 bytes, the name and the 9-byte Info-ZIP timestamp field
  // (no ZIP64 field or comment for entries below 4 GiB)
  const centralDirectory = names.reduce((n, name) => n + 46 + Buffer.byteLength(name) + 9, 0);
  const predictedZip64 = centralDirectory >= 0xffff;
  const writtenZip64 = names.length >= 0xffff || centralDirectory >= 0xffffffff || predictedTotal - ZIP64_EOCD_BYTES - 22 - centralDirectory >= 0xffffffff;
  return predictedZip64 && !writtenZip64 ? ZIP64_EOCD_BYTES : 0;
}
