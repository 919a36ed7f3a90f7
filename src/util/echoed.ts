/**
 * Client input quoted in an error message (an id, a file path, a query value, a JSON key) is cut to a readable
 * length, so a 10 KB path or a 64 KiB key is not sent back whole. Every message that echoes what a client sent
 * goes through `echoed`.
 */

/** Most characters of client input an error message repeats. */
export const ECHOED_INPUT_MAX_CHARS = 200;

/** `text` as it may appear in an error message: whole up to 200 characters, else its start, `…` and its length. */
export function echoed(text: string, maxChars = ECHOED_INPUT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  // Not between the two halves of a surrogate pair.
  const cut = /[\uD800-\uDBFF]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${text.slice(0, cut)}… (${text.length} characters)`;
}
