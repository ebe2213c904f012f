/** The query string to forward: the request's own, minus every api_key parameter. */
export function forwardedQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return '';
  const qs = url.slice(q + 1);
  if (!/api(?:_|%5f)key/i.test(qs)) return `?${qs}`;
  const kept = qs.split('&').filter((pair) => {
    const raw = pair.split('=', 1)[0] ?? '';
    let name = raw;
    try {
      name = decodeURIComponent(raw);
    } catch {
      // A malformed name is forwarded as it is; the query service rejects it as unknown.
    }
    return name.toLowerCase() !== 'api_key';
  });
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}
