#!/usr/bin/env node
/**
 * Builds the job image of the Docker runtime without a registry.
 *
 *   node scripts/build-job-image.mjs [--tag eemt:ubuntu24.04]   import into the engine at DOCKER_HOST
 *                                                                (or /var/run/docker.sock), as the service
 *   node scripts/build-job-image.mjs --tar job-image.tar        write the root filesystem as a tar archive
 *                                                                (then `podman import`, see docs/deployment.md)
 *   node scripts/build-job-image.mjs --rootfs DIR                only stage the root filesystem (the Dockerfile)
 *
 * The root filesystem holds what the job child needs and nothing else:
 * - `/app/dist`: this package compiled from `src/`: the modules of today's sources copied from `dist/` when
 *   `npm run build` is current with them (as CI leaves it), else compiled with tsc into the staging folder (`dist/`
 *   is left alone) — the same files either way (`compiledModules`);
 * - `/app/node_modules`: the installed packages the job child imports, found by following the imports (and
 *   `require` calls) of `dist/runtime/jobChild.js` through the compiled code (worker modules included), then every package's
 *   `dependencies`, `optionalDependencies` and `peerDependencies` — whole package folders, native addons
 *   (`*.node`) included; `/app/build/**.node`: native addons of this package itself, when it has any;
 * - `/app/build/wasm`: the WebAssembly kernels: copied from `build/wasm/` when current with `assembly/`, else
 *   compiled (scripts/build-wasm.mjs);
 * - `/usr/local/bin/node` (the Node.js running this script), the shared libraries of node and of every native
 *   addon (`ldd`) and the dynamic loader;
 * - `/etc/passwd` and `/etc/group` with the unprivileged users `node` (1000) and `nobody` (65534), empty mount
 *   points for `/etc/hosts`, `/etc/resolv.conf` and `/etc/hostname`, and the folders `/job`, `/input`,
 *   `/scratch`, `/cache`, `/tmp`.
 *
 * The image is labelled with a digest of that root filesystem: importing the same content again is skipped.
 */
import Docker from 'dockerode';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { staleBuildParts } from './build-state.mjs';
import { WASM_KERNELS } from './wasm-kernels.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** Label holding the digest of the image's root filesystem. */
export const DIGEST_LABEL = 'org.eemt.rootfs-digest';
/** The job child, relative to /app (also the image's default command). */
const JOB_CHILD = 'dist/runtime/jobChild.js';
/** Image settings; the Dockerfile's final stage states the same ones. */
const IMAGE_CHANGES = [
  'USER node',
  'WORKDIR /job',
  'ENV PATH=/usr/local/bin:/usr/bin:/bin',
  'ENV NODE_ENV=production',
  `CMD ["node", "/app/${JOB_CHILD}", "/job/job.json"]`,
];

const log = (message) => process.stderr.write(`build-job-image: ${message}\n`);

// ---- the job child's packages -------------------------------------------------------------------------

/** Module references in compiled ESM: static and dynamic imports, re-exports, worker modules, `require` (createRequire). */
const REFERENCES = [
  /\bimport\s+(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bexport\s+[\w*${}\s,]+?\s+from\s+['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bnew\s+URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
];
/** `siblingModuleUrl(import.meta.url, 'name')` (src/util/modules.ts): the module `./name.js`. */
const SIBLING = /\bsiblingModuleUrl\(\s*import\.meta\.url\s*,\s*['"]([^'"]+)['"]\s*\)/g;

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Names of the packages the compiled modules reachable from `entry` import. */
export function importedPackages(entry) {
  const seen = new Set();
  const packages = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    const specifiers = REFERENCES.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]));
    specifiers.push(...[...code.matchAll(SIBLING)].map((m) => `./${m[1]}.js`));
    for (const specifier of specifiers) {
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = resolve(dirname(file), specifier);
        if (!existsSync(target)) throw new Error(`${relative(REPO, file)} refers to ${specifier}, which does not exist`);
        if (target.endsWith('.js') || target.endsWith('.mjs')) queue.push(target);
      } else if (!isBuiltin(specifier)) {
        packages.add(packageName(specifier));
      }
    }
  }
  return packages;
}

/** The folder of package `name` as Node finds it from `fromDir` (nearest `node_modules` upwards), or null. */
function findPackage(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === REPO || dir === dirname(dir)) return null;
  }
}

/** Folders of `names` and of everything they depend on, as installed under this repo's node_modules. */
export function packageClosure(names) {
  const folders = new Set();
  const queue = [...names].map((name) => ({ name, from: REPO, optional: false, by: 'the job child' }));
  while (queue.length > 0) {
    const { name, from, optional, by } = queue.shift();
    const folder = findPackage(name, from);
    if (!folder) {
      if (optional) continue;
      throw new Error(`package ${name} (needed by ${by}) is not installed: run npm ci`);
    }
    if (folders.has(folder)) continue;
    folders.add(folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, from: folder, optional: false, by: name });
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) queue.push({ name: dep, from: folder, optional: true, by: name });
    for (const dep of Object.keys(manifest.peerDependencies ?? {})) {
      queue.push({ name: dep, from: folder, optional: Boolean(optionalPeers[dep]?.optional), by: name });
    }
  }
  return [...folders].sort();
}

// ---- staging the root filesystem -----------------------------------------------------------------------

/** Files of an installed package that Node never loads at run time. */
function isRunTimeFile(path) {
  return !/\.(map|md|markdown|d\.ts|d\.mts|d\.cts)$/i.test(path) && !path.split(sep).includes('obj.target');
}

function filesUnder(dir, match, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, match, out);
    else if (match(path)) out.push(path);
  }
  return out;
}

/** Absolute paths of the shared libraries `binary` loads (and the dynamic loader), from `ldd`. */
function sharedLibraries(binary) {
  let output;
  try {
    output = execFileSync('ldd', [binary], { encoding: 'utf8' });
  } catch (error) {
    if (/not a dynamic executable/.test(String(error.stdout ?? error.stderr ?? ''))) return [];
    throw error;
  }
  const libraries = [];
  for (const line of output.split('\n')) {
    if (/not found/.test(line)) throw new Error(`${binary}: ${line.trim()}`);
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
    if (path) libraries.push(path);
  }
  return libraries;
}

function copyInto(root, hostPath, imagePath = hostPath) {
  const target = join(root, imagePath);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(hostPath, target); // follows symbolic links: the image gets the file itself
  chmodSync(target, lstatSync(target).mode | 0o444);
}

/** The comment tsc ends a module with when it writes its source map (`npm run build` does; the image has no maps). */
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\n?$/;

/**
 * The modules `tsc -p tsconfig.build.json` makes of `repo`'s sources, relative to `dist/` (`a/b.js` for
 * `src/a/b.ts`), when its `dist/` holds every one of them and is current with the sources (build-state.mjs); else
 * null. Only these are copied: a module in `dist/` whose source was deleted is not part of the build.
 */
export async function compiledModules(repo = REPO) {
  if ((await staleBuildParts(repo, ['typescript'])).length > 0) return null;
  const src = join(repo, 'src');
  const modules = filesUnder(src, (p) => p.endsWith('.ts') && !p.endsWith('.d.ts')).map((p) => relative(src, p).replace(/\.ts$/, '.js'));
  return modules.every((m) => existsSync(join(repo, 'dist', m))) ? modules.sort() : null;
}

/**
 * Writes the compiled package into `appDist`: `compiledModules` copied from `repo`'s `dist/` without their
 * source-map comments (byte for byte what tsc writes without source maps), or, when the build is not current, the
 * sources compiled with tsc. Returns how they got there.
 */
export async function stageCompiledModules(appDist, repo = REPO) {
  const modules = await compiledModules(repo);
  if (modules) {
    for (const module of modules) {
      const target = join(appDist, module);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, readFileSync(join(repo, 'dist', module), 'utf8').replace(SOURCE_MAP_COMMENT, '\n'));
    }
    return `copied ${modules.length} modules of the current build (dist/)`;
  }
  execFileSync(
    process.execPath,
    [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(repo, 'tsconfig.build.json'), '--outDir', appDist, '--sourceMap', 'false'],
    { cwd: repo, stdio: 'inherit' },
  );
  return 'compiled src/ with tsc';
}

/** Stages the job image's root filesystem into the empty folder `root`. */
export async function stageRootfs(root) {
  chmodSync(root, 0o755); // a temporary folder is private; the image's / must not be
  const app = join(root, 'app');
  log(await stageCompiledModules(join(app, 'dist')));
  copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
  if ((await staleBuildParts(REPO, ['wasm'])).length === 0) {
    log('copying the current WebAssembly kernels (build/wasm/)');
    for (const { output } of WASM_KERNELS) copyInto(app, join(REPO, 'build/wasm', output), join('build/wasm', output));
  } else {
    log('compiling assembly/ with AssemblyScript');
    execFileSync(process.execPath, [join(REPO, 'scripts/build-wasm.mjs'), '--out', join(app, 'build/wasm')], { cwd: REPO, stdio: 'inherit' });
  }
  for (const addon of filesUnder(join(REPO, 'build'), (p) => p.endsWith('.node') && isRunTimeFile(p))) {
    copyInto(app, addon, relative(REPO, addon));
  }

  const packages = packageClosure(importedPackages(join(app, JOB_CHILD)));
  for (const folder of packages) {
    cpSync(folder, join(app, relative(REPO, folder)), {
      recursive: true,
      dereference: true,
      filter: (source) => isRunTimeFile(source) && !relative(folder, source).split(sep).includes('node_modules'),
    });
  }
  log(`${packages.length} packages: ${packages.map((p) => relative(join(REPO, 'node_modules'), p)).join(', ')}`);

  copyInto(root, process.execPath, '/usr/local/bin/node');
  const binaries = [process.execPath, ...filesUnder(app, (p) => p.endsWith('.node'))];
  for (const library of new Set(binaries.flatMap(sharedLibraries))) copyInto(root, library);

  const etc = join(root, 'etc');
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000:node:/job:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n');
  writeFileSync(join(etc, 'group'), 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n');
  for (const mountPoint of ['hosts', 'resolv.conf', 'hostname']) writeFileSync(join(etc, mountPoint), '');
  for (const dir of ['job', 'input', 'scratch', 'cache', 'tmp', 'proc', 'sys', 'dev']) mkdirSync(join(root, dir), { recursive: true });
  chmodSync(join(root, 'tmp'), 0o1777);
}

/** SHA-256 over every path, type, permission bits and content (or link target) under `root`, in name order. */
export function rootfsDigest(root) {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const rel = relative(root, path);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        hash.update(`d ${rel} ${mode}\n`);
        walk(path);
      } else if (stat.isSymbolicLink()) {
        hash.update(`l ${rel} ${readlinkSync(path)}\n`);
      } else {
        hash.update(`f ${rel} ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}\n`);
      }
    }
  };
  hash.update(`d . ${(lstatSync(root).mode & 0o7777).toString(8)}\n`);
  walk(root);
  return `sha256:${hash.digest('hex')}`;
}

// ---- the image -----------------------------------------------------------------------------------------

/** `tar` of `root` with owner root and fixed times, as a stream. */
function tarStream(root) {
  const tar = spawn('tar', ['--sort=name', '--numeric-owner', '--owner=0', '--group=0', '--mtime=@0', '-C', root, '-cf', '-', '.'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolveExit, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolveExit() : reject(new Error(`tar exited with code ${code}`))));
  });
  return { stream: tar.stdout, exited };
}

/** Imports `root` into the engine as `tag` unless an image of that name with the same digest is there. */
export async function importRootfs(docker, root, tag, digest) {
  const existing = await docker.getImage(tag).inspect().catch(() => null);
  if (existing?.Config?.Labels?.[DIGEST_LABEL] === digest) {
    log(`${tag} is up to date (${digest})`);
    return false;
  }
  const { stream, exited } = tarStream(root);
  // `repo` with the tag in it: Podman's Docker API ignores a separate `tag` on import
  const response = await docker.importImage(stream, { repo: tag, changes: [...IMAGE_CHANGES, `LABEL ${DIGEST_LABEL}=${digest}`] });
  let text = '';
  for await (const chunk of response) text += chunk;
  await exited;
  const failure = /"error"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (failure) throw new Error(`the engine refused the image: ${JSON.parse(failure[1])}`);
  const imported = await docker.getImage(tag).inspect();
  if (imported.Config?.Labels?.[DIGEST_LABEL] !== digest) throw new Error(`the engine did not keep the image settings of ${tag}`);
  log(`imported ${tag} (${digest})`);
  // the image this tag named before is of no use any more (the engine keeps it while containers use it)
  if (existing && existing.Id !== imported.Id) await docker.getImage(existing.Id).remove().catch(() => undefined);
  return true;
}

async function main() {
  const { values } = parseArgs({
    options: {
      tag: { type: 'string', default: process.env.CONTAINER_IMAGE || 'eemt:ubuntu24.04' },
      rootfs: { type: 'string' },
      tar: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(2, 9).map((l) => l.replace(/^ \* ?/, '')).join('\n') + '\n');
    return;
  }
  if (values.rootfs) {
    if (existsSync(values.rootfs) && readdirSync(values.rootfs).length > 0) throw new Error(`${values.rootfs} is not empty`);
    mkdirSync(values.rootfs, { recursive: true });
    await stageRootfs(resolve(values.rootfs));
    return;
  }
  const docker = values.tar ? null : new Docker();
  await docker?.ping().catch((error) => {
    const where = process.env.DOCKER_HOST || '/var/run/docker.sock';
    throw new Error(`no container engine answers at ${where} (${error.message}); set DOCKER_HOST=unix:///path/to/podman.sock, or write a tar with --tar`);
  });
  const root = mkdtempSync(join(tmpdir(), 'eemt-rootfs-'));
  try {
    await stageRootfs(root);
    const digest = rootfsDigest(root);
    if (values.tar) {
      const { stream, exited } = tarStream(root);
      await pipeline(stream, createWriteStream(values.tar));
      await exited;
      log(`wrote ${values.tar}; import it with:`);
      const changes = [...IMAGE_CHANGES, `LABEL ${DIGEST_LABEL}=${digest}`].map((c) => `--change '${c}'`).join(' ');
      process.stdout.write(`podman import ${changes} ${values.tar} ${values.tag}\n`);
      return;
    }
    await importRootfs(docker, root, values.tag, digest);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
