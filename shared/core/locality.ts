/** The region of a zone: fr-par-1 -> fr-par (a region is left as it is). */
export function regionOf(zone: string): string {
  return zone.replace(/-\d+$/, '');
}
