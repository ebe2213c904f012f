import { describe, expect, it } from 'vitest';
import { dailyChart } from './page.ts';

const days = (counts: number[]) =>
  counts.map((count, i) => ({ day: 20_000 + i, date: `2026-11-${String(i + 1).padStart(2, '0')}`, count }));

/** The grid labels and the bars' tops, read back from the rendered SVG. */
function read(counts: number[]) {
  const svg = dailyChart(days(counts)).value;
  const labels = [...svg.matchAll(/text-anchor="end">([^<]+)</g)].map((m) => m[1]);
  const lines = [...svg.matchAll(/<line x1="[^"]+" x2="[^"]+" y1="([^"]+)"/g)].map((m) => Number(m[1]));
  const tops = [...svg.matchAll(/class="bar"\s+x="[^"]+"\s+y="([^"]+)"/g)].map((m) => Number(m[1]));
  return { labels, lines, tops };
}

describe('the usage bar chart', () => {
  it.each([[1], [3], [5], [25], [7_312]])('labels whole-number grid lines for a peak of %i', (peak) => {
    const values = read([0, peak]).labels.map((l) => Number(l?.replace(/,/g, '')));
    // Evenly spaced lines at 0, top / 2 and top, each labelled with its exact (whole) value, top >= the peak.
    expect(values).toHaveLength(3);
    const [zero, middle, top] = values as [number, number, number];
    expect(zero).toBe(0);
    expect(top).toBeGreaterThanOrEqual(peak);
    expect(middle * 2).toBe(top);
    expect(Number.isInteger(middle)).toBe(true);
  });

  it('draws a bar whose count is a grid value exactly on that grid line', () => {
    // A peak of 5 gives grid lines 0, 5, 10 (not 0, 2.5 labelled "3", 5): the bar of 5 ends on the middle line.
    const { labels, lines, tops } = read([5, 0]);
    expect(labels).toEqual(['0', '5', '10']);
    expect(tops[0]).toBeCloseTo(lines[1]!, 1);
  });

  it('keeps an all-zero month drawable (no division by zero)', () => {
    const { labels, tops } = read([0, 0, 0]);
    expect(labels).toEqual(['0', '1', '2']);
    expect(tops.every((t) => Number.isFinite(t))).toBe(true);
  });
});
