/**
 * Typed reads of the kernels' imported memory (assembly/dailyKernel.ts, sunlitLanes.ts, cellBounds.ts, nearBounds.ts): a
 * descriptor's i32 field, and element i of an f64, i16 or i32 array at a byte offset. Inlined where used.
 */

/** Field `field` of the i32 descriptor at `desc`. */
@inline export function fi(desc: usize, field: i32): i32 {
  return load<i32>(desc + (<usize>field << 2));
}

/** Element i of the f64 array at byte offset `ptr`. */
@inline export function f64at(ptr: i32, i: i32): f64 {
  return load<f64>(<usize>ptr + (<usize>i << 3));
}

/** Element i of the i16 array at byte offset `ptr`, as an f64. */
@inline export function i16at(ptr: i32, i: i32): f64 {
  return <f64>load<i16>(<usize>ptr + (<usize>i << 1));
}

/** Element i of the i32 array at byte offset `ptr`. */
@inline export function i32at(ptr: i32, i: i32): i32 {
  return load<i32>(<usize>ptr + (<usize>i << 2));
}
