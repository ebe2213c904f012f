import { describe, expect, it } from 'vitest';
import { createDocCache } from './apply-event.ts';

describe('createDocCache', () => {
  it('keeps the most recently used entries up to its size, dropping the least recently used first', () => {
    const cache = createDocCache<{ n: number }>(2);
    cache.set('a', { n: 1 });
    cache.set('b', { n: 2 });
    expect(cache.get('a')).toEqual({ n: 1 }); // a is now the most recent
    cache.set('c', { n: 3 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual({ n: 1 });
    expect(cache.get('c')).toEqual({ n: 3 });
    cache.set('a', { n: 4 });
    expect(cache.get('a')).toEqual({ n: 4 });
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toEqual({ n: 3 });
  });
});
