/** The list's search rule, for in-memory use: case-insensitive literal substring of name or symbol. */
export function matchesSearch(
  doc: { name?: string | undefined; symbol?: string | undefined },
  search: string,
): boolean {
  const needle = search.toLowerCase();
  return (doc.name ?? '').toLowerCase().includes(needle) || (doc.symbol ?? '').toLowerCase().includes(needle);
}
