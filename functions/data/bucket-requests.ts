import { partition } from '@aws-sdk/core/client';
import { Sha256 } from '@smithy/core/checksum';
import { extendedEncodeURIComponent, HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { awsEndpointIn, config } from '../shared/config';

/**
 * The S3 requests of one object of the bucket, as the S3 client would send them, for the two modules that
 * send or sign them without it: object reads and writes (bucket.ts) and presigned links (bucket-links.ts).
 */

/**
 * A request of one key of the bucket: GetObject, HeadObject, PutObject, or a step of a multipart upload
 * (CreateMultipartUpload `POST ?uploads`, UploadPart `PUT ?partNumber&uploadId`, CompleteMultipartUpload
 * `POST ?uploadId`, AbortMultipartUpload `DELETE ?uploadId`).
 */
export interface ObjectRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  key: string;
  /** Query parameters S3 reads, e.g. response-content-disposition, uploadId. */
  query?: Record<string, string>;
  /** Headers of the request (lower-case names): signed, so S3 holds the request to them. */
  headers?: Record<string, string>;
}

/**
 * The operation a request is, as the S3 client names it in `x-id` (client-s3's operation paths): by its method
 * and, for a PUT or DELETE, whether it names an upload. It sends none on HeadObject and on the two POSTs, whose
 * `?uploads` and `?uploadId` name them.
 */
function operationIdOf({ method, query }: ObjectRequest): string | undefined {
  const ofUpload = query?.uploadId !== undefined;
  if (method === 'GET') return 'GetObject';
  if (method === 'PUT') return ofUpload ? 'UploadPart' : 'PutObject';
  if (method === 'DELETE' && ofUpload) return 'AbortMultipartUpload';
  return undefined;
}

/**
 * The request of `object`, unsigned. Addressed as the S3 client addresses it: virtual-hosted
 * (`<bucket>.s3.<region>.<partition's domain>`), or path-style on the endpoint AWS_ENDPOINT_URL_S3 names where
 * S3_FORCE_PATH_STYLE is set (the local emulator).
 */
export function objectHttpRequest(object: ObjectRequest): HttpRequest {
  const { bucketName, s3ForcePathStyle, environment } = config();
  const awsEndpoint = () => {
    const region = bucketRegion();
    return `https://s3.${region}.${partition(region).dnsSuffix}`;
  };
  const endpoint = new URL(awsEndpointIn(environment, 'S3') ?? awsEndpoint());
  const keyPath = `/${object.key.split('/').map(extendedEncodeURIComponent).join('/')}`;
  const base = endpoint.pathname.replace(/\/$/, '');
  const operation = operationIdOf(object);
  const request = new HttpRequest({
    method: object.method,
    protocol: endpoint.protocol,
    hostname: s3ForcePathStyle ? endpoint.hostname : `${bucketName}.${endpoint.hostname}`,
    ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
    path: s3ForcePathStyle ? `${base}/${bucketName}${keyPath}` : `${base}${keyPath}`,
    query: { ...object.query, ...(operation ? { 'x-id': operation } : {}) },
    headers: { ...object.headers },
  });
  request.headers.host = `${request.hostname}${request.port != null ? `:${request.port}` : ''}`;
  return request;
}

/** AWS_REGION: the bucket's region, the one the function runs in. */
export function bucketRegion(): string {
  const region = config().environment.AWS_REGION;
  if (!region) throw new Error('environment variable AWS_REGION is not set');
  return region;
}

/** AWS credentials as STS gives a session's. */
export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * SigV4 for S3 (the SDK's own SignatureV4, which a cold start already has for DynamoDB). S3 signs the path as
 * sent, each segment encoded once (objectHttpRequest); `applyChecksum` signs the payload's SHA-256 in
 * x-amz-content-sha256 unless the request already names one (UNSIGNED-PAYLOAD).
 */
export function s3Signer(credentials: SigningCredentials, applyChecksum: boolean): SignatureV4 {
  return new SignatureV4({
    credentials,
    region: bucketRegion(),
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum,
  });
}
