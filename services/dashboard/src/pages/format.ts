/** A count as the pages show it: `1,000,000`. */
export const fmt = (n: number): string => n.toLocaleString('en-US');
