/**
 * Failures the proxy itself answers, in each service's own error shape, so the SDK raises the error it
 * raises on AWS:
 * - DynamoDB: AWS JSON 1.0, `{"__type": "<namespace>#<Code>", "message": ...}`, status 400 for client errors.
 * - SQS (AWS JSON 1.0, query-compatible): the same body plus `x-amzn-query-error: <query code>;Sender`,
 *   which the SDK takes the error name from (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-json-api-responses.html).
 * - S3: REST XML `<Error><Code>...</Code><Message>...</Message>...</Error>`, no body for HEAD.
 * - KMS: AWS JSON 1.1, `{"__type": "<Code>", "message": ...}`, status 400 for client errors.
 * - STS (awsQuery): XML `<ErrorResponse><Error><Type>Sender</Type><Code>...</Code><Message>...</Message>
 *   </Error><RequestId>...</RequestId></ErrorResponse>`.
 * - API Gateway (REST JSON): `{"message": ...}` with the type in `x-amzn-ErrorType`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export type ServiceName = 'dynamodb' | 'sqs' | 's3' | 'sts' | 'apigateway' | 'kms';

export interface ServiceError {
  status: number;
  /** The JSON `__type` (DynamoDB, SQS) or the XML `Code` (S3, STS). */
  type: string;
  message: string;
  /** SQS only: the awsQuery error code, e.g. `AccessDenied` or `AWS.SimpleQueueService.BatchRequestTooLong`. */
  queryCode?: string;
  /** DynamoDB's AccessDeniedException spells the key `Message`. */
  messageKey?: 'message' | 'Message';
}

const CORAL = 'com.amazon.coral.service#';
const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const INVALID_TOKEN = 'The security token included in the request is invalid.';
const EXPIRED_TOKEN = 'The security token included in the request is expired';

/** Why authentication failed, independent of the service. */
export type AuthenticationFailure =
  | { kind: 'missing' }
  | { kind: 'malformed'; message: string }
  | { kind: 'unknownKey' }
  | { kind: 'invalidToken' }
  | { kind: 'expiredToken' }
  | { kind: 'badSignature' }
  | { kind: 'skewed'; message: string }
  | { kind: 'presignExpired' }
  | { kind: 'presignTooLong' };

const dynamodb = (type: string, message: string, status = 400): ServiceError => ({
  status,
  type: `${CORAL}${type}`,
  message,
});

const sqs = (type: string, queryCode: string, message: string, status = 403): ServiceError => ({
  status,
  type: `${CORAL}${type}`,
  message,
  queryCode,
});

const s3 = (type: string, message: string, status = 403): ServiceError => ({ status, type, message });

const sts = (code: string, message: string, status = 403): ServiceError => ({ status, type: code, message });

/** API Gateway names its errors as DynamoDB does, without the namespace. */
const restJson = (error: ServiceError): ServiceError => ({
  status: error.status,
  type: error.type.replace(/^.*#/, ''),
  message: error.message,
});

/** KMS answers the JSON errors DynamoDB does, its `__type` without the namespace. */
const asKms = (error: ServiceError): ServiceError => ({
  ...error,
  type: error.type.replace(/^.*#/, ''),
  messageKey: 'message',
});

/** STS, DynamoDB and SQS refuse an unknown access key as they do an invalid session token. */
const invalidToken = (service: 'sts' | 'dynamodb' | 'sqs'): ServiceError =>
  service === 'sts'
    ? sts('InvalidClientTokenId', INVALID_TOKEN)
    : service === 'dynamodb'
      ? dynamodb('UnrecognizedClientException', INVALID_TOKEN)
      : sqs('InvalidClientTokenIdException', 'InvalidClientTokenId', INVALID_TOKEN);

/** STS, DynamoDB and SQS refuse a skewed clock as they do a wrong signature, with a message of its own. */
const signatureMismatch = (service: 'sts' | 'dynamodb' | 'sqs', message: string): ServiceError =>
  service === 'sts'
    ? sts('SignatureDoesNotMatch', message)
    : service === 'dynamodb'
      ? dynamodb('InvalidSignatureException', message)
      : sqs('SignatureDoesNotMatchException', 'SignatureDoesNotMatch', message);

export function authenticationError(service: ServiceName, failure: AuthenticationFailure): ServiceError {
  if (service === 'apigateway') {
    if (failure.kind === 'missing')
      return {
        status: 403,
        type: 'MissingAuthenticationTokenException',
        message: 'Missing Authentication Token',
      };
    return restJson({ ...authenticationError('dynamodb', failure), status: 403 });
  }
  if (service === 'kms') return asKms(authenticationError('dynamodb', failure));
  switch (failure.kind) {
    case 'missing':
      if (service === 's3') return s3('AccessDenied', 'Access Denied');
      if (service === 'sts')
        return sts('MissingAuthenticationToken', 'Request is missing Authentication Token');
      return service === 'dynamodb'
        ? dynamodb('MissingAuthenticationTokenException', 'Request is missing Authentication Token')
        : sqs(
            'MissingAuthenticationTokenException',
            'MissingAuthenticationToken',
            'Request is missing Authentication Token',
          );
    case 'malformed':
      if (service === 's3') return s3('AuthorizationHeaderMalformed', failure.message, 400);
      if (service === 'sts') return sts('IncompleteSignature', failure.message, 400);
      return service === 'dynamodb'
        ? dynamodb('IncompleteSignatureException', failure.message)
        : sqs('IncompleteSignatureException', 'IncompleteSignature', failure.message, 400);
    case 'unknownKey':
      if (service === 's3')
        return s3('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
      return invalidToken(service);
    case 'invalidToken':
      if (service === 's3')
        return s3('InvalidToken', 'The provided token is malformed or otherwise invalid.', 400);
      return invalidToken(service);
    case 'expiredToken':
      if (service === 's3') return s3('ExpiredToken', 'The provided token has expired.', 400);
      if (service === 'sts') return sts('ExpiredToken', EXPIRED_TOKEN, 400);
      return service === 'dynamodb'
        ? dynamodb('ExpiredTokenException', EXPIRED_TOKEN)
        : sqs('ExpiredTokenException', 'ExpiredToken', EXPIRED_TOKEN);
    case 'badSignature':
      if (service === 's3') {
        return s3(
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        );
      }
      return signatureMismatch(service, SIGNATURE_MISMATCH);
    case 'skewed':
      if (service === 's3') {
        return s3(
          'RequestTimeTooSkewed',
          'The difference between the request time and the current time is too large.',
        );
      }
      return signatureMismatch(service, failure.message);
    case 'presignExpired':
      return s3('AccessDenied', 'Request has expired');
    case 'presignTooLong':
      return s3(
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be less than a week (in seconds) that is; 604800',
        400,
      );
  }
}

/** AccessDenied as each service words it for an identity-based denial (S3 quotes the resource). */
export function accessDeniedError(
  service: ServiceName,
  principalArn: string,
  action: string,
  resource: string,
  explicit: boolean,
): ServiceError {
  // SQS spells the action in lower case in this message ("sqs:sendmessage").
  const shownAction = service === 'sqs' ? action.toLowerCase() : action;
  const shownResource = service === 's3' ? `"${resource}"` : resource;
  const reason = explicit
    ? 'with an explicit deny in an identity-based policy'
    : `because no identity-based policy allows the ${shownAction} action`;
  const message = `User: ${principalArn} is not authorized to perform: ${shownAction} on resource: ${shownResource} ${reason}`;
  return operationDenied(service, message);
}

/** A denial with a message of the proxy's own (an operation it cannot authorize). */
export function operationDenied(service: ServiceName, message: string): ServiceError {
  if (service === 'apigateway') return { status: 403, type: 'AccessDeniedException', message };
  if (service === 'kms') return asKms(operationDenied('dynamodb', message));
  if (service === 's3' || service === 'sts') return s3('AccessDenied', message);
  if (service === 'dynamodb') return { ...dynamodb('AccessDeniedException', message), messageKey: 'Message' };
  return { ...sqs('AccessDeniedException', 'AccessDenied', message), messageKey: 'Message' };
}

/** A request the service rejects before looking at any resource (missing or malformed parameters). */
export function validationError(service: ServiceName, message: string): ServiceError {
  if (service === 'apigateway') return { status: 400, type: 'BadRequestException', message };
  if (service === 'kms') return { status: 400, type: 'ValidationException', message };
  if (service === 's3') return s3('InvalidRequest', message, 400);
  if (service === 'sts') return sts('ValidationError', message, 400);
  if (service === 'dynamodb')
    return { status: 400, type: 'com.amazon.coral.validate#ValidationException', message };
  return sqsError('InvalidParameterValue', 'InvalidParameterValue', message);
}

/** An SQS-specific error (`com.amazonaws.sqs#<type>`), e.g. BatchRequestTooLong. */
export function sqsError(type: string, queryCode: string, message: string, status = 400): ServiceError {
  return { status, type: `com.amazonaws.sqs#${type}`, message, queryCode };
}

export function internalError(service: ServiceName, message: string): ServiceError {
  if (service === 'apigateway') return { status: 500, type: 'InternalFailure', message };
  if (service === 'kms') return { status: 500, type: 'KMSInternalException', message };
  if (service === 's3') return s3('InternalError', message, 500);
  if (service === 'sts') return sts('InternalFailure', message, 500);
  if (service === 'dynamodb') return dynamodb('InternalFailure', message, 500);
  return sqs('InternalFailure', 'InternalFailure', message, 500);
}

export const STS_NAMESPACE = 'https://sts.amazonaws.com/doc/2011-06-15/';

export const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function sendError(
  res: ServerResponse,
  service: ServiceName,
  error: ServiceError,
  isHead = false,
): void {
  const requestId = randomUUID();
  const { contentType, body, extra } = errorResponse(service, error, requestId, isHead);
  res.writeHead(error.status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

/** The error in the service's own shape: its content type, its body and its headers after the length. */
function errorResponse(
  service: ServiceName,
  error: ServiceError,
  requestId: string,
  isHead: boolean,
): { contentType: string; body: string; extra: Record<string, string> } {
  const side = error.status >= 500 ? 'Receiver' : 'Sender';
  if (service === 's3') {
    const body = isHead
      ? ''
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.type}</Code><Message>${escapeXml(error.message)}</Message><RequestId>${requestId}</RequestId><HostId>local-aws-proxy</HostId></Error>`;
    return { contentType: 'application/xml', body, extra: { 'x-amz-request-id': requestId } };
  }
  if (service === 'sts') {
    const body = `<ErrorResponse xmlns="${STS_NAMESPACE}"><Error><Type>${side}</Type><Code>${error.type}</Code><Message>${escapeXml(error.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
    return { contentType: 'text/xml', body, extra: { 'x-amzn-requestid': requestId } };
  }
  if (service === 'apigateway') {
    return {
      contentType: 'application/json',
      body: JSON.stringify({ message: error.message }),
      extra: { 'x-amzn-errortype': error.type, 'x-amzn-requestid': requestId },
    };
  }
  return {
    contentType: `application/x-amz-json-${service === 'kms' ? '1.1' : '1.0'}`,
    body: JSON.stringify({ __type: error.type, [error.messageKey ?? 'message']: error.message }),
    extra: {
      'x-amzn-requestid': requestId,
      ...(error.queryCode ? { 'x-amzn-query-error': `${error.queryCode};${side}` } : {}),
    },
  };
}
