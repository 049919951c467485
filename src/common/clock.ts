import { Injectable } from '@nestjs/common';

/**
 * The relay's notion of "now". Everything that expires (sessions, PATs, invitations, resets,
 * recordings, scheduled deletions) asks this clock, so end-to-end tests can move time forward
 * instead of sleeping. Nothing in production calls advance().
 */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  /** Test hook: moves the relay's time forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
