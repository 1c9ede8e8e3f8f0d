// A request the sandbox refuses because it breaks a rule of the spec (or a documented sandbox choice).
// Models throw it; being an ApiError, the server answers it as {id, object, detail, invalid_params}.

import { ApiError, type InvalidParam } from '../core/api-error';

export type { InvalidParam };

export type RuleViolationStatus = 400 | 401 | 404 | 409 | 422;

export class RuleViolation extends ApiError {
  /** The rule code of each invalid param, in order (when the problems came from several rules). */
  paramCodes: string[] | undefined;

  constructor(status: RuleViolationStatus, object: string, detail: string, invalidParams: InvalidParam[] = []) {
    super(status, object, detail, { invalidParams });
    this.name = 'RuleViolation';
  }

  get detail(): string {
    return this.message;
  }
}

export const badRequest = (detail: string, invalidParams: InvalidParam[] = []): RuleViolation =>
  new RuleViolation(400, 'bad_request', detail, invalidParams);

export const notFound = (detail: string): RuleViolation => new RuleViolation(404, 'not_found', detail);

export const unprocessable = (object: string, detail: string, invalidParams: InvalidParam[] = []): RuleViolation =>
  new RuleViolation(422, object, detail, invalidParams);
