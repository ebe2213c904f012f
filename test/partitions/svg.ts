// The timeline of a partition run as a small hand-written SVG (no dependencies): answers per second
// stacked by kind (admitted, 429, 503, errors), the projections' lag as a line on its own scale,
// the partition as a shaded band and the revocation's answer as a dashed line.
import { timeline, type History } from './history.ts';

const W = 760;
const H = 240;
const PAD = { left: 44, right: 52, top: 44, bottom: 46 };
const COLORS = {
  admitted: '#4c9a5b',
  limited429: '#d9a53f',
  unavailable: '#e07b39',
  errors: '#c23b3b',
  lag: '#3b6fc2',
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const n = (x: number) => Math.round(x * 10) / 10;

/** A round step for an axis up to `max` with about 4 ticks. */
function step(max: number): number {
  const raw = Math.max(4, max) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
}

export function timelineSvg(h: History): string {
  const secs = timeline(h);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const total = (s: (typeof secs)[number]) => s.admitted + s.limited429 + s.unavailable + s.errors;
  const reqStep = step(Math.max(1, ...secs.map(total)));
  const reqMax = Math.ceil(Math.max(1, ...secs.map(total)) / reqStep) * reqStep;
  const lagStep = step(Math.max(10, ...secs.map((s) => s.lag ?? 0)));
  const lagMax = Math.ceil(Math.max(10, ...secs.map((s) => s.lag ?? 0)) / lagStep) * lagStep;
  const x = (second: number) => PAD.left + (second / secs.length) * plotW;
  const yReq = (v: number) => PAD.top + plotH - (v / reqMax) * plotH;
  const yLag = (v: number) => PAD.top + plotH - (v / lagMax) * plotH;
  const bw = Math.max(1, plotW / secs.length - 1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${PAD.left}" y="16" font-size="13" font-weight="bold">${esc(h.title)}</text>`,
    `<text x="${PAD.left}" y="28" fill="#555">${esc(h.cut)}</text>`,
  );
  for (let v = 0; v <= reqMax; v += reqStep) {
    out.push(
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${n(yReq(v))}" y2="${n(yReq(v))}" stroke="#ddd"/>`,
      `<text x="${PAD.left - 4}" y="${n(yReq(v) + 4)}" text-anchor="end">${v}</text>`,
    );
  }
  for (let v = 0; v <= lagMax; v += lagStep) {
    out.push(`<text x="${W - PAD.right + 4}" y="${n(yLag(v) + 4)}" fill="${COLORS.lag}">${v}</text>`);
  }
  for (const s of secs) {
    let base = 0;
    for (const kind of ['admitted', 'limited429', 'unavailable', 'errors'] as const) {
      const v = s[kind];
      if (v === 0) continue;
      out.push(
        `<rect x="${n(x(s.second))}" y="${n(yReq(base + v))}" width="${n(bw)}" height="${n(yReq(base) - yReq(base + v))}" fill="${COLORS[kind]}"/>`,
      );
      base += v;
    }
  }
  // Over the bars, translucent, its label above the plot.
  const px = x(h.partition.from / 1000);
  out.push(
    `<rect x="${n(px)}" y="${PAD.top}" width="${n(x(h.partition.to / 1000) - px)}" height="${plotH}" fill="#000" fill-opacity="0.18"/>`,
    `<text x="${n(px + 3)}" y="${PAD.top - 3}" fill="#444">partitioned</text>`,
  );
  // One line per run of known samples: a second whose lag could not be read breaks the line.
  const runs: string[][] = [[]];
  for (const s of secs) {
    if (s.lag === null) runs.push([]);
    else runs.at(-1)!.push(`${n(x(s.second + 0.5))},${n(yLag(s.lag))}`);
  }
  for (const points of runs.filter((r) => r.length > 0)) {
    out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${COLORS.lag}" stroke-width="1.5"/>`);
  }
  if (h.revocation.answeredAt !== null) {
    const rx = n(x(h.revocation.answeredAt / 1000));
    out.push(
      `<line x1="${rx}" x2="${rx}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#000" stroke-dasharray="3,3"/>`,
      `<text x="${rx + 3}" y="${PAD.top + 24}">revoked</text>`,
    );
  }
  for (let t = 0; t <= secs.length; t += step(secs.length) * 1) {
    out.push(`<text x="${n(x(t))}" y="${PAD.top + plotH + 14}" text-anchor="middle">${t}</text>`);
  }
  const ly = H - 10;
  const legend: [string, string][] = [
    [COLORS.admitted, '2xx'],
    [COLORS.limited429, '429'],
    [COLORS.unavailable, '503'],
    [COLORS.errors, 'other / no answer'],
    [COLORS.lag, 'projection lag (messages, right axis; a gap: not readable)'],
  ];
  let lx = PAD.left;
  for (const [color, label] of legend) {
    out.push(
      `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${color}"/>`,
      `<text x="${lx + 14}" y="${ly}">${esc(label)}</text>`,
    );
    lx += 24 + label.length * 6;
  }
  out.push(
    `<text x="${W - PAD.right}" y="${PAD.top - 3}" text-anchor="end" fill="#555">seconds; answers per second (left)</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
