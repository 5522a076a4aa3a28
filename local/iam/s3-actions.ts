/**
 * Which IAM permissions AWS checks for each S3 REST operation the service and its local runtime call (as
 * actions.ts does for the other services): the operation a request is, its action(s) and resource ARN(s).
 * S3 (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html)
 *   GetObject, HeadObject                      s3:GetObject             `arn:aws:s3:::<bucket>/<key>`
 *   PutObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload   s3:PutObject, object ARN
 *   CopyObject, UploadPartCopy                 s3:GetObject on the source and s3:PutObject on the target
 *   AbortMultipartUpload                       s3:AbortMultipartUpload  object ARN
 *   ListParts                                  s3:ListMultipartUploadParts   object ARN
 *   DeleteObject                               s3:DeleteObject          object ARN
 *   ListObjects(V2), HeadBucket                s3:ListBucket            `arn:aws:s3:::<bucket>`
 *   ListMultipartUploads                       s3:ListBucketMultipartUploads  bucket ARN
 *   CreateBucket, DeleteBucket, GetBucketLocation   s3:<same name>  bucket ARN
 *   PutBucketNotificationConfiguration         s3:PutBucketNotification  bucket ARN
 *   GetBucketNotificationConfiguration         s3:GetBucketNotification  bucket ARN
 *   ListBuckets                                s3:ListAllMyBuckets      `*`
 */
import { type AuthorizationCheck, check, UnknownOperationError } from './actions';

/** What the S3 REST API identifies a request by: method, bucket and key (decoded), query and headers. */
export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface S3Operation {
  operation: string;
  checks: AuthorizationCheck[];
}

const bucketArn = (bucket: string) => `arn:aws:s3:::${bucket}`;
const objectArn = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;

/**
 * Query parameters that do not change which operation a request is: the SDK's `x-id`, `x-amz-*` (presigning
 * and the headers a presigned URL carries in its query), response overrides and listing parameters. Any
 * other parameter names a subresource (`?tagging`, `?acl`...) this module does not know, and makes the
 * request an unknown operation.
 */
const PLAIN_PARAMETERS = new Set([
  'x-id',
  'response-content-type',
  'response-content-language',
  'response-expires',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'partnumber',
  'uploadid',
  'list-type',
  'prefix',
  'delimiter',
  'max-keys',
  'continuation-token',
  'start-after',
  'fetch-owner',
  'encoding-type',
  'marker',
  'max-parts',
  'part-number-marker',
  'max-uploads',
  'key-marker',
  'upload-id-marker',
  'expected-bucket-owner',
]);

/** The bucket subresources this module knows, each with its own operation. */
const BUCKET_SUBRESOURCES = new Set(['uploads', 'notification', 'location']);
const OBJECT_SUBRESOURCES = new Set(['uploads']);

function copySourceArn(headers: S3Request['headers']): string | undefined {
  const source = headers['x-amz-copy-source'];
  if (typeof source !== 'string') return undefined;
  const path = decodeURIComponent(source.split('?')[0] as string).replace(/^\//, '');
  return `arn:aws:s3:::${path}`;
}

/** Names an S3 REST request's operation and the checks AWS makes for it. */
export function s3Operation(request: S3Request): S3Operation {
  const { method, bucket, key, query, headers } = request;
  const subresources = [...query.keys()].filter(
    (name) => !PLAIN_PARAMETERS.has(name.toLowerCase()) && !name.toLowerCase().startsWith('x-amz-'),
  );
  const allowed = key === '' ? BUCKET_SUBRESOURCES : OBJECT_SUBRESOURCES;
  const unknown = subresources.find((name) => !allowed.has(name));
  const has = (name: string) => query.has(name);
  const label = `S3 ${method} ${key === '' ? '/<bucket>' : '/<bucket>/<key>'}${subresources.length ? `?${subresources.join('&')}` : ''}`;
  if (unknown !== undefined || subresources.length > 1) throw new UnknownOperationError(label);
  const op = (operation: string, ...checks: AuthorizationCheck[]): S3Operation => ({ operation, checks });

  if (bucket === '') {
    if (method === 'GET' && subresources.length === 0) {
      return op('ListBuckets', check('s3:ListAllMyBuckets', '*'));
    }
    throw new UnknownOperationError(label);
  }
  if (key === '') {
    const arn = bucketArn(bucket);
    const sub = subresources[0];
    switch (method) {
      case 'PUT':
        if (sub === 'notification') {
          return op('PutBucketNotificationConfiguration', check('s3:PutBucketNotification', arn));
        }
        if (sub === undefined) return op('CreateBucket', check('s3:CreateBucket', arn));
        break;
      case 'GET':
        if (sub === 'uploads') return op('ListMultipartUploads', check('s3:ListBucketMultipartUploads', arn));
        if (sub === 'notification') {
          return op('GetBucketNotificationConfiguration', check('s3:GetBucketNotification', arn));
        }
        if (sub === 'location') return op('GetBucketLocation', check('s3:GetBucketLocation', arn));
        return op(
          query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects',
          check('s3:ListBucket', arn),
        );
      case 'HEAD':
        if (sub === undefined) return op('HeadBucket', check('s3:ListBucket', arn));
        break;
      case 'DELETE':
        if (sub === undefined) return op('DeleteBucket', check('s3:DeleteBucket', arn));
        break;
    }
    throw new UnknownOperationError(label);
  }

  const arn = objectArn(bucket, key);
  const source = copySourceArn(headers);
  const sub = subresources[0];
  const uploadId = has('uploadId');
  switch (method) {
    case 'GET':
      if (sub === undefined && uploadId) return op('ListParts', check('s3:ListMultipartUploadParts', arn));
      if (sub === undefined) return op('GetObject', check('s3:GetObject', arn));
      break;
    case 'HEAD':
      if (sub === undefined && !uploadId) return op('HeadObject', check('s3:GetObject', arn));
      break;
    case 'PUT':
      if (sub !== undefined) break;
      if (uploadId && has('partNumber')) {
        return source
          ? op('UploadPartCopy', check('s3:GetObject', source), check('s3:PutObject', arn))
          : op('UploadPart', check('s3:PutObject', arn));
      }
      if (!uploadId && !has('partNumber')) {
        return source
          ? op('CopyObject', check('s3:GetObject', source), check('s3:PutObject', arn))
          : op('PutObject', check('s3:PutObject', arn));
      }
      break;
    case 'POST':
      if (sub === 'uploads' && !uploadId) return op('CreateMultipartUpload', check('s3:PutObject', arn));
      if (sub === undefined && uploadId) return op('CompleteMultipartUpload', check('s3:PutObject', arn));
      break;
    case 'DELETE':
      if (sub === undefined) {
        return uploadId
          ? op('AbortMultipartUpload', check('s3:AbortMultipartUpload', arn))
          : op('DeleteObject', check('s3:DeleteObject', arn));
      }
      break;
  }
  throw new UnknownOperationError(label);
}

// --------------------------------------------------------------------------------------------------- STS
