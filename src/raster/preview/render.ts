/**
 * Map previews as PNG: values coloured on the viridis scale between a minimum and a maximum, nodata fully
 * transparent, optionally shaded by a hillshade (multiplied in, with an ambient part so that shaded slopes keep
 * their colour), encoded by pngjs (RGBA, 8 bits per channel).
 */
import { PNG } from 'pngjs';
import { VIRIDIS, VIRIDIS_SIZE } from './viridis.js';

/** Share of the light that reaches every cell when a hillshade is blended in (the rest follows the shade). */
export const AMBIENT_LIGHT = 0.4;

/** A colour of the scale for `value` between `min` and `max` (the middle colour when min = max), as #rrggbb. */
function scaleColour(value: number, min: number, max: number): string {
  const k = scaleIndex(value, min, max) * 3;
  return `#${[VIRIDIS[k]!, VIRIDIS[k + 1]!, VIRIDIS[k + 2]!].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function scaleIndex(value: number, min: number, max: number): number {
  const t = max > min ? (value - min) / (max - min) : 0.5;
  return Math.min(VIRIDIS_SIZE - 1, Math.max(0, Math.round(t * (VIRIDIS_SIZE - 1))));
}

/** `count` evenly spaced legend stops from `min` to `max` with their colours. */
export function legendStops(min: number, max: number, count = 9): { value: number; color: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const value = count === 1 || max === min ? min : min + ((max - min) * i) / (count - 1);
    return { value, color: scaleColour(value, min, max) };
  });
}

/**
 * RGBA pixels of `values` (row-major, NaN = nodata → transparent) on the viridis scale over [min, max],
 * multiplied by AMBIENT_LIGHT + (1 − AMBIENT_LIGHT) × shade where `shade` (0–1, same size) is given and valid.
 */
export function colourise(values: ArrayLike<number>, min: number, max: number, shade: ArrayLike<number> | null = null): Uint8Array {
  const rgba = new Uint8Array(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) continue; // transparent black
    const k = scaleIndex(v, min, max) * 3;
    const s = shade === null || shade[i]! !== shade[i]! ? 1 : AMBIENT_LIGHT + (1 - AMBIENT_LIGHT) * shade[i]!;
    rgba[4 * i] = Math.round(VIRIDIS[k]! * s);
    rgba[4 * i + 1] = Math.round(VIRIDIS[k + 1]! * s);
    rgba[4 * i + 2] = Math.round(VIRIDIS[k + 2]! * s);
    rgba[4 * i + 3] = 255;
  }
  return rgba;
}

/** An RGBA image as PNG bytes. */
export function encodePng(rgba: Uint8Array, width: number, height: number): Buffer {
  if (rgba.length !== width * height * 4) throw new RangeError(`${width}×${height} RGBA needs ${width * height * 4} bytes, got ${rgba.length}`);
  const png = new PNG({ width, height, colorType: 6, inputColorType: 6, bitDepth: 8, inputHasAlpha: true });
  png.data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.length);
  return PNG.sync.write(png, { colorType: 6, inputColorType: 6, inputHasAlpha: true });
}
