import { existsSync, readFileSync } from 'node:fs';
import { writeStateFile } from '../state-files';
import type { Principal } from './principals';
import type { AssumableRole } from './sts';

/** A session STS issued: its credentials, whose role it is and when it expires. */
export interface IssuedSession {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** The assumed-role ARN the session acts as. */
  arn: string;
  roleArn: string;
  expiresAt: number;
}

/**
 * The STS sessions a persistent `npm start` issued, kept in a file of its state (`.local/sts-sessions.json`):
 * links presigned with one (uploads, downloads) work until the session ends on AWS, whatever happens to the
 * process that signed them, so a restart must not forget the session. Written whole on every issue (readable
 * by this user only: it holds secret keys, as the KMS master key beside it), expired sessions left out.
 */
export class KeptSessions {
  private sessions: IssuedSession[];

  constructor(private readonly file: string) {
    this.sessions = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as IssuedSession[]) : [];
  }

  /** Keeps a session just issued. */
  remember(session: IssuedSession): void {
    const now = Date.now();
    this.sessions = [...this.sessions.filter((kept) => kept.expiresAt > now), session];
    writeStateFile(this.file, JSON.stringify(this.sessions), 0o600);
  }

  /**
   * The unexpired sessions of roles the deployment still has, as principals with their role's policies as
   * they are now (a grant removed since applies to the sessions issued before, as IAM evaluates them).
   */
  principals(roles: ReadonlyMap<string, AssumableRole>): Principal[] {
    const now = Date.now();
    return this.sessions.flatMap((session) => {
      const role = roles.get(session.roleArn);
      if (!role || session.expiresAt <= now) return [];
      const { roleArn: _, ...credentials } = session;
      return [{ ...credentials, policies: role.policies }];
    });
  }
}
