import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Clock } from '../../common/clock';
import { notFound, unauthorized } from '../../common/errors/http-error';
import { TrackerDirectory } from '../tracker-directory';
import { TrackersService } from '../trackers.service';
import { readStatusReport, verifyWebhook } from './tracker-webhook';

const NO_TRACKER = 'Tracker not found';
const BAD_SIGNATURE = 'Invalid webhook signature';

/** A tracker's webhook: verified against its secret, then the status onto its build. */
@Injectable()
export class TrackerWebhookService {
  constructor(
    private readonly directory: TrackerDirectory,
    private readonly trackers: TrackersService,
    private readonly clock: Clock,
  ) {}

  async receive(name: string, req: Request & { rawBody?: Buffer }): Promise<number> {
    const entry = this.directory.find(name);
    if (!entry) throw notFound(NO_TRACKER);
    const raw = req.rawBody ?? Buffer.alloc(0);
    if (!verifyWebhook(entry.tracker, req.headers, raw, req.body, this.clock.nowMs())) throw unauthorized(BAD_SIGNATURE);
    const report = readStatusReport(entry.tracker, req.headers, req.body);
    return report ? this.trackers.statusChanged(entry.tracker.name, report) : 0;
  }
}
