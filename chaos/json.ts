/** JSON.parse that answers undefined for text that is not JSON (delivered bodies may be deliberately invalid). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
