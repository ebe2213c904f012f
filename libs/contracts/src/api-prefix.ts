/** Where the public API lives on the gateway (and the query service): every path starts with it. */
export const API_PREFIX = '/api/v1';
