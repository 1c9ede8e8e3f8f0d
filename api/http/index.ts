// The HTTP layer's public surface.
export { API_CONFIG_ENV, ApiConfigError, createApiConfig, DEFAULT_API_TIMEOUTS, DEFAULT_VERSION_HEADER, loadApiConfig, redactApiConfig } from './api-config';
export type { ApiConfig, ApiConfigInput, ApiConfigIssue, ApiTimeouts } from './api-config';
export { AccessTokenProvider, DEFAULT_TOKEN_REFRESH_MARGIN_MS, type AccessTokenProviderOptions } from './access-token-provider';
export { createDemandApiClient, type ApiRequest, type ApiResponse, type DemandApiClient, type DemandApiClientOptions, type HttpMethod } from './demand-api-client';
export {
  ApiFailureType,
  apiFailureDetails,
  failureFromAnswer,
  failureFromTransportError,
  isFailureOfType,
  parseRetryAfter,
  ambiguousNaturalKeyFailure,
  blobCorruptFailure,
  blobNotFoundFailure,
  invalidInputFailure,
  unexpectedResponseFailure,
  type ApiFailureDetails,
  type ApiFailureTypeName,
  type InvalidParam,
} from './errors';
export { boundaryFromSeed, multipartFileBody, type MultipartFilePart, type StreamingBody } from './multipart-body';
export { closeSharedApiDispatchers, sharedApiDispatcher } from './shared-dispatcher';
