/**
 * JavaScript's Math functions, imported by the kernels that must compute what their TypeScript twins compute to
 * the bit (src/util/wasmModules.ts passes them as `env`): V8's sin, cos, atan… are its own ports of fdlibm, and
 * Math.hypot its own algorithm, which a WebAssembly build of another library need not match in the last bit.
 */

@external('env', 'sin')
export declare function jsSin(x: f64): f64;
@external('env', 'cos')
export declare function jsCos(x: f64): f64;
@external('env', 'tan')
export declare function jsTan(x: f64): f64;
@external('env', 'asin')
export declare function jsAsin(x: f64): f64;
@external('env', 'acos')
export declare function jsAcos(x: f64): f64;
@external('env', 'atan')
export declare function jsAtan(x: f64): f64;
@external('env', 'atan2')
export declare function jsAtan2(y: f64, x: f64): f64;
@external('env', 'hypot')
export declare function jsHypot(x: f64, y: f64): f64;
@external('env', 'pow')
export declare function jsPow(x: f64, y: f64): f64;
@external('env', 'exp')
export declare function jsExp(x: f64): f64;
