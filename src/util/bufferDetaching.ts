/**
 * V8 compiles typed-array code on the assumption that no ArrayBuffer has ever been detached in the thread (its
 * "ArrayBufferDetaching" protector). The first detachment — a WebAssembly memory growing, a buffer transferred
 * to another thread — drops every function compiled on that assumption, and V8 compiles them again. A thread
 * that will detach buffers anyway can give up the assumption before it compiles anything: the code it then
 * compiles is the code it would have ended with, compiled once.
 */

/** Detaches one empty buffer (see the module comment). */
export function detachABufferNow(): void {
  const buffer = new ArrayBuffer(0);
  structuredClone(buffer, { transfer: [buffer] });
}
