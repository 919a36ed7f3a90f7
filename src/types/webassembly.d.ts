/**
 * The part of the WebAssembly JavaScript API this package uses (Node.js has it globally; TypeScript declares it
 * only in its DOM and web-worker libraries, which do not belong in a Node.js build).
 * @see https://webassembly.github.io/spec/js-api/
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    readonly buffer: ArrayBuffer;
    grow(deltaPages: number): number;
  }
  class Global {
    readonly value: unknown;
  }
  type ImportValue = ((...args: never[]) => unknown) | Memory | Global | number;
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, ImportValue>>);
    readonly exports: Record<string, unknown>;
  }
}
