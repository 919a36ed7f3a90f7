/**
 * Numbers written by people and clients (query strings, form fields, command-line options) are read as plain
 * decimal notation only: an optional sign, digits with an optional fraction, an optional exponent. JavaScript's
 * `Number()` also accepts hexadecimal (`0x10`), octal and binary literals, `Infinity`, surrounding white space and
 * the empty string (as 0); none of those is a number a user meant to send.
 */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The finite number `text` spells in decimal notation, or null (not decimal, or out of the double range). */
export function parseDecimal(text: string): number | null {
  if (!DECIMAL.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
