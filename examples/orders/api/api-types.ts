/** A request as the example API sees it, whatever carried it (node:http locally, API Gateway deployed). */
export interface ApiRequest {
  readonly method: string;
  /** Path without query string, e.g. `/orders/o-1/pay`. */
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body; `undefined` when there was none, or when it could not be read. */
  readonly body: unknown;
  /** Why the body could not be read (not JSON, too large): the API answers with it once the method and path are known to be a route's. */
  readonly bodyError?: ApiError;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The JSON body of every error answer. */
export interface ApiErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly field?: string };
}

/** A request the API refuses; becomes a 4xx answer with its `code`, `message` and `field` (and `headers`, such as a 405's `Allow`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
