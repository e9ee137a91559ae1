import { describe, expect, it } from 'vitest';
import type { AnswerFigures } from '../../../shared/core/answer-figures';
import { answerFigures, neededPassing, worstPool } from '../../../shared/core/answer-figures';

const lb = (figures: Partial<AnswerFigures>): AnswerFigures => ({ added: 0, removed: 0, deferred: 0, ...figures });

describe('worstPool: the pool figures of a target with several LBs are those of the LB worst off', () => {
  it.each<[string, AnswerFigures[], Partial<AnswerFigures>]>([
    [
      'the LB with the most passing members short, whatever its place',
      [lb({ poolSize: 3, poolPassing: 3, poolNeeded: 2, poolShort: 0 }), lb({ poolSize: 3, poolPassing: 1, poolNeeded: 2, poolShort: 1 })],
      { poolSize: 3, poolPassing: 1, poolNeeded: 2, poolShort: 1 },
    ],
    [
      'none short: the fewest passing',
      [lb({ poolSize: 4, poolPassing: 2, poolNeeded: 2, poolShort: 0 }), lb({ poolSize: 3, poolPassing: 3, poolNeeded: 2, poolShort: 0 })],
      { poolSize: 4, poolPassing: 2, poolNeeded: 2, poolShort: 0 },
    ],
    [
      'an LB whose health was read before one whose health was not (the alerts read pool_passing)',
      [lb({ poolSize: 2 }), lb({ poolSize: 3, poolPassing: 3, poolNeeded: 2, poolShort: 0 })],
      { poolSize: 3, poolPassing: 3, poolNeeded: 2, poolShort: 0 },
    ],
    ['no health read on any: the smallest pool', [lb({ poolSize: 3 }), lb({ poolSize: 2 })], { poolSize: 2 }],
    [
      'an LB not read at all (it failed before its backends) is left out',
      [lb({}), lb({ poolSize: 3, poolPassing: 3 })],
      { poolSize: 3, poolPassing: 3 },
    ],
    ['no LB read: no pool figures', [lb({}), lb({})], {}],
  ])('%s', (_what, perLb, expected) => {
    expect(worstPool(perLb)).toEqual(expected);
  });

  it('agrees with answerFigures on one LB: its figures as they are', () => {
    const one = answerFigures({
      observedBackends: { https: { pool: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] } },
      writes: [],
      health: [{ health: { '10.0.0.1': { condition: 'passing' }, '10.0.0.2': { condition: 'failing' } } }],
      desiredSize: 3,
      dryRun: false,
    });
    expect(one).toMatchObject({ poolSize: 3, poolPassing: 1, poolNeeded: neededPassing(3), poolShort: 1 });
    expect(worstPool([one])).toEqual({ poolSize: 3, poolPassing: 1, poolNeeded: 2, poolShort: 1 });
  });
});
