// Label and field selectors as the cache parses and matches them (the API server's grammar,
// apimachinery's labels.Parse: equality, sets, existence, and the integer comparisons gt / lt).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorSyntaxError,
} from '../../../src/runtime/client/selector.js';

const labels = { tier: 'web', env: 'prod', n: '5', word: 'five' };
const matches = (sel: string) => matchesLabels(parseLabelSelector(sel), labels);

describe('label selectors', () => {
  it('match every operator as the API server does', () => {
    assert.equal(matches('tier=web'), true);
    assert.equal(matches('tier==web'), true);
    assert.equal(matches('tier!=web'), false);
    assert.equal(matches('missing!=x'), true);
    assert.equal(matches('tier in (web,db)'), true);
    assert.equal(matches('tier notin (web)'), false);
    assert.equal(matches('env'), true);
    assert.equal(matches('!env'), false);
    assert.equal(matches('tier=web,env=prod'), true);
    assert.equal(matches(''), true);
  });

  it('compare integers with > and <; a label that is not an integer never matches', () => {
    assert.equal(matches('n>3'), true);
    assert.equal(matches('n<3'), false);
    assert.equal(matches('n>5'), false);
    assert.equal(matches('word>3'), false);
    assert.equal(matches('missing<3'), false);
  });

  it('refuse a term that does not parse, naming it', () => {
    assert.throws(
      () => parseLabelSelector('a in b'),
      (e) => e instanceof SelectorSyntaxError && e.term === 'a in b',
    );
    assert.throws(
      () => parseFieldSelector('metadata.name'),
      (e) => e instanceof SelectorSyntaxError && e.term === 'metadata.name',
    );
  });
});
