/**
 * What the WebAssembly kernels (assembly/*.ts, compiled by scripts/build-wasm.mjs into build/wasm/) share on the
 * JavaScript side: loading and compiling a module once per thread, instantiating it on a memory of ours, and
 * laying typed arrays out in that memory.
 */
import { readFileSync } from 'node:fs';

/** The compiled kernels, by name (build/wasm/<name>.wasm). */
export type WasmKernelName = 'dailyKernel' | 'nearBounds' | 'farSweep' | 'deflateTile';

export const PAGE_BYTES = 65536;
/**
 * Bytes below this are left to a module: its stack (none today) and its static data, which AssemblyScript places
 * from byte 1024 (today the tile encoder's code tables, under 1 KiB).
 */
export const RESERVED_BYTES = PAGE_BYTES;

const compiled = new Map<WasmKernelName, WebAssembly.Module>();

/** The compiled module `name` (read and compiled once per thread). */
function wasmKernelModule(name: WasmKernelName): WebAssembly.Module {
  let module = compiled.get(name);
  if (!module) {
    // relative to this file: src/util or dist/util, two folders below the repository
    const url = new URL(`../../build/wasm/${name}.wasm`, import.meta.url);
    let bytes: Buffer;
    try {
      bytes = readFileSync(url);
    } catch {
      throw new Error(`the WebAssembly kernel ${name} is not built (${url.pathname}): run \`npm run build\``);
    }
    module = new WebAssembly.Module(bytes);
    compiled.set(name, module);
  }
  return module;
}

/**
 * An instance of kernel `name` on `memory`, checked to export `signature` (default DESCRIPTOR_FIELDS, the fields of
 * its descriptors) with the value `expected` (a module built from other sources than this build's is refused).
 */
export function instantiateKernel(name: WasmKernelName, memory: WebAssembly.Memory, expected: number, signature = 'DESCRIPTOR_FIELDS'): WebAssembly.Instance {
  const instance = new WebAssembly.Instance(wasmKernelModule(name), {
    env: {
      memory,
      // (JavaScript's, for the same values: assembly/javascriptMath.ts)
      atan: Math.atan,
      hypot: Math.hypot,
      sin: Math.sin,
      cos: Math.cos,
      tan: Math.tan,
      asin: Math.asin,
      acos: Math.acos,
      atan2: Math.atan2,
      pow: Math.pow,
      exp: Math.exp,
      abort: () => {
        throw new Error(`the WebAssembly kernel ${name} aborted`);
      },
    },
  });
  const value = (instance.exports[signature] as WebAssembly.Global | undefined)?.value as number | undefined;
  if (value !== expected) throw new Error(`build/wasm/${name}.wasm does not match this build: run \`npm run build\``);
  return instance;
}

type View = Int16Array | Int32Array | Float32Array | Float64Array | Uint8Array;

/** Bump allocation of typed arrays in a memory, 16-byte aligned; without a buffer it only counts the bytes. */
export class Arena {
  constructor(
    private readonly buffer: ArrayBuffer | null,
    private top = RESERVED_BYTES,
  ) {}
  get used(): number {
    return this.top;
  }
  take<T extends View>(Type: { new (b: ArrayBuffer, o: number, n: number): T; new (n: number): T; readonly BYTES_PER_ELEMENT: number }, length: number): T {
    this.top = Math.ceil(this.top / 16) * 16;
    const view = this.buffer ? new Type(this.buffer, this.top, length) : new Type(0);
    this.top += length * Type.BYTES_PER_ELEMENT;
    return view;
  }
}
