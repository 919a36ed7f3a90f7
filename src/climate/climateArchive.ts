/**
 * Bounded reading of an untrusted ZIP of climate grids (the `climate_file` of an eemt job).
 *
 * The ZIP format is parsed by yauzl (a small, well-kept reader that never extracts to disk, reads the central
 * directory first, refuses entry names with `..` or absolute paths, and checks every entry's actual size
 * against the size its header declares). On top of it, before any byte is inflated, the archive must stay
 * within `ArchiveLimits`: the number of entries, each entry's and the total declared uncompressed size, and
 * the compression ratio of large entries (a ZIP bomb declares sizes far beyond the file or compresses
 * beyond any real raster). Symbolic links, encrypted entries and unknown compression methods are refused.
 * While an entry is inflated its bytes are counted against its declared size and the limits again. The work of
 * a read is bounded by these sizes, not by the wall clock, which a busy machine stretches for honest files too
 * (the processes that read untrusted archives at submission also have a processor-time budget: jobs/admission/demCheck.ts).
 */
import { createHash } from 'node:crypto';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ClimateInputError } from './errors.js';
import { echoed } from '../util/echoed.js';

/** Bounds of an archive read. */
export interface ArchiveLimits {
  /** Most entries (files and folders) [count]. */
  readonly maxEntries: number;
  /** Largest uncompressed entry [bytes]. */
  readonly maxEntryBytes: number;
  /** Largest sum of the uncompressed entries [bytes]. */
  readonly maxTotalBytes: number;
  /** Largest uncompressed/compressed ratio of an entry above `ratioCheckAboveBytes`. */
  readonly maxRatio: number;
  /** Entries up to this uncompressed size are not ratio-checked (small files compress well legitimately) [bytes]. */
  readonly ratioCheckAboveBytes: number;
}

/**
 * Defaults: a time series of 1980–2024 is 2160 grids; 256 MiB per grid and 4 GiB in all are far beyond a
 * DEM-sized window of any climate product; GeoTIFFs are compressed inside already, so a ZIP rarely gains more
 * than 10× on them, while uncompressed constant rasters may reach a few hundred: 1000× is refused.
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxEntries: 4096,
  maxEntryBytes: 256 * 1024 ** 2,
  maxTotalBytes: 4 * 1024 ** 3,
  maxRatio: 1000,
  ratioCheckAboveBytes: 1024 ** 2,
});

/** An entry of the archive: its path inside the ZIP and declared sizes. */
export interface ArchiveEntry {
  readonly path: string;
  /** Last path component. */
  readonly name: string;
  readonly isDirectory: boolean;
  readonly uncompressedBytes: number;
  readonly compressedBytes: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const MIB = 1024 ** 2;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

function refuse(reason: string): never {
  throw new ClimateInputError('ARCHIVE', `climate_file is not an acceptable ZIP archive: ${reason}`);
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true }, (error, zip) => {
      if (error) reject(new ClimateInputError('ARCHIVE', `climate_file is not a readable ZIP archive: ${error.message}`));
      else resolve(zip);
    });
  });
}

/** An opened climate ZIP whose entries passed the declared-size bounds; entries are inflated on demand. */
export class ClimateArchive {
  private totalRead = 0;

  private constructor(
    private readonly zip: ZipFile,
    private readonly byPath: Map<string, Entry>,
    readonly entries: readonly ArchiveEntry[],
    private readonly limits: ArchiveLimits,
  ) {}

  /** Opens `path` and checks its central directory against `limits` (ClimateInputError `ARCHIVE` otherwise). */
  static async open(path: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ClimateArchive> {
    const zip = await openZip(path);
    try {
      if (zip.entryCount > limits.maxEntries) refuse(`it has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`);
      const byPath = new Map<string, Entry>();
      const entries: ArchiveEntry[] = [];
      let total = 0;
      await new Promise<void>((resolve, reject) => {
        zip.on('error', (error: Error) => {
          reject(error instanceof ClimateInputError ? error : new ClimateInputError('ARCHIVE', `climate_file is not a readable ZIP archive: ${error.message}`));
        });
        zip.on('end', () => resolve());
        zip.on('entry', (entry: Entry) => {
          try {
            const info = checkEntry(entry, limits);
            total += info.uncompressedBytes;
            if (total > limits.maxTotalBytes) refuse(`its entries hold more than ${mib(limits.maxTotalBytes)} uncompressed`);
            if (byPath.has(info.path)) refuse(`it holds ${echoed(info.path)} twice`);
            byPath.set(info.path, entry);
            entries.push(info);
            zip.readEntry();
          } catch (error) {
            reject(error);
          }
        });
        zip.readEntry();
      });
      return new ClimateArchive(zip, byPath, entries, limits);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /** The bytes of the entry at `path` and their SHA-256 (hex), inflated within the limits. */
  async read(path: string): Promise<{ bytes: Buffer; sha256: string }> {
    const entry = this.byPath.get(path);
    if (!entry) throw new RangeError(`no entry ${path} in the archive`);
    const declared = entry.uncompressedSize;
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
      this.zip.openReadStream(entry, (error, s) => (error ? reject(new ClimateInputError('ARCHIVE', `climate_file: ${echoed(path)} cannot be read: ${error.message}`)) : resolve(s)));
    });
    const bytes = Buffer.allocUnsafe(declared);
    const hash = createHash('sha256');
    let filled = 0;
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        (stream as unknown as { destroy(): void }).destroy();
        reject(error);
      };
      stream.on('data', (chunk: Buffer) => {
        if (filled + chunk.length > declared) {
          fail(new ClimateInputError('ARCHIVE', `climate_file is not an acceptable ZIP archive: ${echoed(path)} inflates beyond its declared size`));
          return;
        }
        chunk.copy(bytes, filled);
        hash.update(chunk);
        filled += chunk.length;
      });
      stream.on('error', (error: Error) =>
        fail(new ClimateInputError('ARCHIVE', `climate_file is not an acceptable ZIP archive: ${echoed(path)}: ${error.message}`)),
      );
      stream.on('end', () => resolve());
    });
    if (filled !== declared) refuse(`${echoed(path)} is shorter than its declared size`);
    this.totalRead += filled;
    if (this.totalRead > this.limits.maxTotalBytes * 2) refuse(`reading it needed more than ${mib(this.limits.maxTotalBytes * 2)}`);
    return { bytes, sha256: hash.digest('hex') };
  }

  close(): void {
    this.zip.close();
  }
}

/** Checks one central-directory entry against the limits before anything of it is inflated. */
function checkEntry(entry: Entry, limits: ArchiveLimits): ArchiveEntry {
  const path = entry.fileName;
  const isDirectory = path.endsWith('/');
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === S_IFLNK) refuse(`${echoed(path)} is a symbolic link`);
  if (entry.isEncrypted()) refuse(`${echoed(path)} is encrypted`);
  if (!entry.canDecodeFileData()) refuse(`${echoed(path)} uses an unsupported compression method (${entry.compressionMethod})`);
  const uncompressed = entry.uncompressedSize;
  if (uncompressed > limits.maxEntryBytes) refuse(`${echoed(path)} is ${mib(uncompressed)} uncompressed, more than the limit of ${mib(limits.maxEntryBytes)} per file`);
  if (uncompressed > limits.ratioCheckAboveBytes && uncompressed > limits.maxRatio * Math.max(1, entry.compressedSize)) {
    refuse(`${echoed(path)} expands ${Math.round(uncompressed / Math.max(1, entry.compressedSize))}× (more than ${limits.maxRatio}×): a ZIP bomb, not a raster`);
  }
  const name = path.replace(/\/$/, '').split('/').pop() ?? path;
  return { path, name, isDirectory, uncompressedBytes: uncompressed, compressedBytes: entry.compressedSize };
}
