import { Injectable } from '@nestjs/common';
import { DeviceSessionClients } from './device-session-clients.service';

/** Who holds a device for an automated (WebDriver hub) session, shown on GET /devices. */
export interface DeviceHolder {
  hubSessionId: string;
  userId: number;
  /** The member's display name (or e-mail) as the Devices page shows it. */
  member: string;
  buildId: number | null;
  runName: string | null;
  since: Date;
}

/**
 * Which devices an automated session holds. In memory on purpose: no reservation survives a
 * restart of the relay (docs/device-tests.md). Manual live sessions and automated ones never share
 * a device: a device with a person's control socket open is not reserved, and a reserved device
 * refuses a control socket (DeviceSessionGateway). Watching the live video is neither.
 */
@Injectable()
export class DeviceReservations {
  private readonly holders = new Map<string, DeviceHolder>();

  constructor(private readonly clients: DeviceSessionClients) {}

  /** Takes the device for `holder`; false when another session holds it or a person is controlling it. */
  reserve(deviceSessionId: string, holder: DeviceHolder): boolean {
    if (this.holders.has(deviceSessionId) || this.inManualUse(deviceSessionId)) return false;
    this.holders.set(deviceSessionId, holder);
    return true;
  }

  /** Frees the device if `hubSessionId` still holds it (a late release of an ended session does nothing). */
  release(deviceSessionId: string, hubSessionId: string): void {
    if (this.holders.get(deviceSessionId)?.hubSessionId === hubSessionId) this.holders.delete(deviceSessionId);
  }

  /** A session id that the reservation is known by once Appium named it. */
  rename(deviceSessionId: string, from: string, to: string): void {
    const holder = this.holders.get(deviceSessionId);
    if (holder?.hubSessionId === from) holder.hubSessionId = to;
  }

  holderOf(deviceSessionId: string): DeviceHolder | null {
    return this.holders.get(deviceSessionId) ?? null;
  }

  isFree(deviceSessionId: string): boolean {
    return !this.holders.has(deviceSessionId) && !this.inManualUse(deviceSessionId);
  }

  private inManualUse(deviceSessionId: string): boolean {
    return this.clients.of(deviceSessionId).some((client) => !client.video);
  }
}
