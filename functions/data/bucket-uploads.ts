import type { Readable } from 'node:stream';
import { config } from '../shared/config';

/**
 * Streams `body` into an object with a multipart upload (5 MB parts, a few in flight): memory stays bounded
 * whatever the object's size. The one use of the S3 client (and of lib-storage's upload manager), loaded on
 * first use: a module of its own, since esbuild puts the SDK code a lazily loaded client shares with the entry
 * into the cold start of every bundle that holds the `import()` (bucket.ts says why the other requests go
 * without the client).
 */
export async function uploadStream(key: string, body: Readable, contentType: string): Promise<void> {
  const [{ createS3Client }, { Upload }] = await Promise.all([
    import('./s3-client'),
    import('@aws-sdk/lib-storage'),
  ]);
  await new Upload({
    client: createS3Client(),
    params: { Bucket: config().bucketName, Key: key, Body: body, ContentType: contentType },
    queueSize: 2,
    partSize: 5 * 1024 * 1024,
  }).done();
}
