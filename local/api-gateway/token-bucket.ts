/**
 * A token bucket as API Gateway throttles with: `burst` tokens at most, refilled at `rate` per second; a
 * request passes when it can take a token.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt = performance.now();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(now = performance.now()): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
