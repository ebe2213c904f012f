/**
 * The units of a US table's matrix, from its unit filler rows (`m1_unit_descr1..3`: the labels
 * the printed table shows left of its rows). Each row's label may come in fragments across its
 * columns (`Thousand Short`, `Tons`), joined in order. Three rows are area, yield and quantity
 * (`Million Acres`, `Bushels`, `Million Bushels`); one row is the quantity (`Million Pounds`); other
 * counts are told apart by their words. A yield label is per harvested acre (`Bushels per Acre`).
 */

export interface MatrixUnits {
  area?: string | undefined;
  yield?: string | undefined;
  quantity?: string | undefined;
}

const PER_ACRE = (label: string) => (/\bper\b|\//i.test(label) ? label : `${label} per Acre`);

export function unitsOfMatrix(
  rows: ReadonlyMap<number, readonly string[]> | undefined,
  quantity?: string,
): MatrixUnits {
  const labels = [...(rows ?? new Map<number, readonly string[]>()).entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, parts]) => parts.join(' ').replace(/\s+/g, ' ').trim())
    .filter((l) => l !== '');
  if (labels.length === 3) return { area: labels[0], yield: PER_ACRE(labels[1]!), quantity: labels[2] };
  if (labels.length === 1) return { quantity: labels[0] };
  const area = labels.find((l) => /acres/i.test(l));
  const big = labels.filter((l) => l !== area && /^(?:million|thousand|billion|1,000)\b/i.test(l));
  const small = labels.find((l) => l !== area && !big.includes(l));
  return {
    area,
    yield: small === undefined ? undefined : PER_ACRE(small),
    quantity: big.length === 1 ? big[0] : quantity,
  };
}
