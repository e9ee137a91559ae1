// The tests' own reading of a text for a secret, written apart from the scrubber (shared/outbound/scrub.ts) so that
// one can judge the other: whether the text reveals the secret however it is written. In any case; with its
// characters escaped (\u0041, \x41, %41, &#65;, &#x41;, JSON's \" \\ \/, YAML's ''); or inside base64 or base64url
// of any text (each run decoded at its four alignments), itself escaped or not, down to base64 of base64.

/** Reads every escape the project's outputs may hold, as a JSON, YAML, URL or HTML reader would. */
function unescaped(text: string): string {
  return text
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (bytes) => Buffer.from(bytes.replaceAll('%', ''), 'hex').toString('utf8'))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\U([0-9a-fA-F]{8})/g, (_, h: string) => String.fromCodePoint(Math.min(Number.parseInt(h, 16), 0x10ffff)))
    .replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/&#x([0-9a-fA-F]{1,6});/g, (_, h: string) => String.fromCodePoint(Math.min(Number.parseInt(h, 16), 0x10ffff)))
    .replace(/&#(\d{1,7});/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/\\(["\\/])/g, '$1')
    .replaceAll("''", "'");
}

/** Whether `text` reveals `secret` in any of the forms above. */
export function reveals(text: string, secret: string, depth = 2): boolean {
  const wanted = secret.toLowerCase();
  const plain = unescaped(text);
  if (text.toLowerCase().includes(wanted) || plain.toLowerCase().includes(wanted)) return true;
  if (depth === 0) return false;
  for (const view of [text, plain])
    for (const [run] of view.matchAll(/[A-Za-z0-9+/_-]{4,}/g))
      for (let offset = 0; offset < 4; offset += 1) {
        const bytes = Buffer.from(run.slice(offset), 'base64');
        for (const decoded of [bytes.toString('latin1'), bytes.toString('utf8')]) if (reveals(decoded, secret, depth - 1)) return true;
      }
  return false;
}
