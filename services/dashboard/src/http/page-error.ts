/** A page answered with a status (thrown from handlers; the error handler renders it, a 401 as the log-in page). */
export class PageError extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  constructor(status: number, title: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
    this.headers = headers;
  }
}
