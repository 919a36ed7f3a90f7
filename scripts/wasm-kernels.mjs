// The WebAssembly kernels: source under assembly/ → file name under build/wasm/. Compiled by build-wasm.mjs;
// bin/eemt.js compiles them first when one is missing or older than assembly/ (this list keeps it from loading
// the compiler to find out).
export const WASM_KERNELS = [
  { source: 'assembly/dailyKernel.ts', output: 'dailyKernel.wasm' },
  { source: 'assembly/nearBounds.ts', output: 'nearBounds.wasm' },
  { source: 'assembly/farSweep.ts', output: 'farSweep.wasm' },
  { source: 'assembly/deflateTile.ts', output: 'deflateTile.wasm' },
];
