// "Did you mean": the edit distance and the closeness rule used for commands, keys, enum values, zones and targets.
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../shared/schemas/suggest';

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['kop', 'kops', 1],
    ['clustr', 'cluster', 1],
    ['plna', 'plan', 1], // one swap of neighbours
    ['fr-pra-1', 'fr-par-1', 1],
    ['kitten', 'sitting', 3],
    ['abc', '', 3],
  ])('%s -> %s: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closest', () => {
  it.each([
    ['kop', ['kops'], 'kops'],
    ['clustr', ['cluster', 'zone', 'kopsController'], 'cluster'],
    ['plna', ['doctor', 'plan', 'reconcile'], 'plan'],
    ['helthCheck', ['name', 'forwardPort', 'healthCheck'], 'healthCheck'],
    ['ipsource', ['tags', 'ipSource'], 'ipSource'], // case is ignored
    ['fr-pra-1', ['fr-par-1', 'fr-par-2', 'nl-ams-1'], 'fr-par-1'],
    ['nl-ams-4', ['fr-par-1', 'nl-ams-1', 'nl-ams-2', 'nl-ams-3'], 'nl-ams-1'], // a tie goes to the earlier candidate
  ])('%s among %j -> %s', (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  it('suggests nothing that is too far to be a typo, nor the word itself', () => {
    expect(closest('banana', ['cluster', 'zone'])).toBeUndefined();
    expect(closest('ab', ['xy'])).toBeUndefined(); // 2 edits for a 2-letter word
    expect(closest('plan', ['plan'])).toBeUndefined();
    expect(closest('zone', [])).toBeUndefined();
  });

  it('didYouMean renders the suggestion, or nothing', () => {
    expect(didYouMean('kop', ['kops'])).toBe(' (did you mean "kops"?)');
    expect(didYouMean('banana', ['kops'])).toBe('');
  });
});
