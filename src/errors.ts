/** A failure whose status and `detail` are meant for the client. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly detail: unknown;

  constructor(statusCode: number, detail: unknown) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.statusCode = statusCode;
    this.detail = detail;
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail: string) => new HttpError(401, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

/** One entry of a validation failure, in the reference's `HTTPValidationError` shape. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export const unprocessable = (issues: ValidationIssue[] | string) => new HttpError(422, issues);
/** A body or batch past a limit; `detail` names the limit. */
export const tooLarge = (detail: string) => new HttpError(413, detail);
