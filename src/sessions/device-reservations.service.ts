import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ClusterBus } from '../cluster/cluster-bus';
import { clusterSchema } from '../cluster/cluster-schema';
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
 * With Redis, a reservation (and a person's control of a device) is a lease the holding instance
 * renews: an instance that dies frees its devices within the lease, and a restarted one (a new
 * instance id) holds nothing.
 */
export const RESERVATION_LEASE_MS = 10_000;
const RENEW_EVERY_MS = 3_000;

/** What a reservation key holds in Redis: the holder and the instance that renews it. */
const storedHolderSchema = clusterSchema((z) =>
  z.object({
    instanceId: z.uuid(),
    hubSessionId: z.string().min(1).max(200),
    userId: z.int().positive(),
    member: z.string().max(300),
    buildId: z.int().positive().nullable(),
    runName: z.string().max(200).nullable(),
    since: z.number(),
  }),
);

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
/** Takes the device unless it is held, or a person controls it on any instance (a live field of the manual hash). */
const RESERVE = `${NOW}
for i, v in ipairs(redis.call('HVALS', KEYS[2])) do if tonumber(v) > now then return 0 end end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
/** A person takes control: refused (the holder's value returned) while an automated session holds the device. */
const CLAIM_MANUAL = `local held = redis.call('GET', KEYS[1]) if held then return held end
${NOW}
redis.call('HSET', KEYS[2], ARGV[1], now + tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return false`;
const IF_OURS = (then: string) => `if redis.call('GET', KEYS[1]) == ARGV[1] then ${then} end return 0`;
const RENEW = IF_OURS(`return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);
const RELEASE = IF_OURS(`return redis.call('DEL', KEYS[1])`);
const REPLACE = IF_OURS(`return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1`);

/**
 * Which devices an automated session holds (docs/device-tests.md). Alone, in memory: no
 * reservation survives a restart of the relay. With Redis (docs/scaling.md) the reservation is also
 * a key taken atomically (`SET NX` in a script that first checks for a person's control on any
 * instance), so two instances never give one device to two sessions; the holding instance renews
 * it as a lease. Manual live sessions and automated ones never share a device: a device with a
 * person's control socket open (on any instance) is not reserved, and a reserved device refuses a
 * control socket (DeviceSessionGateway). Watching the live video is neither.
 */
@Injectable()
export class DeviceReservations implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebDriverHub');
  private readonly holders = new Map<string, DeviceHolder>();
  /** The value of each reservation key this instance holds (compared before renewing or freeing it). */
  private readonly stored = new Map<string, string>();
  /** Devices whose manual-control field this instance keeps alive in Redis. */
  private readonly manual = new Set<string>();
  /** Of those, the ones with no control socket here at the last renewal. */
  private readonly unusedOnce = new Set<string>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly clients: DeviceSessionClients,
    private readonly bus: ClusterBus,
  ) {}

  onModuleInit(): void {
    if (!this.bus.clustered) return;
    this.renewal = setInterval(() => void this.renew(), RENEW_EVERY_MS);
    this.renewal.unref?.();
  }

  onModuleDestroy(): void {
    if (this.renewal) clearInterval(this.renewal);
  }

  /** Takes the device for `holder`; false when another session holds it or a person is controlling it (on any instance). */
  async reserve(deviceSessionId: string, holder: DeviceHolder): Promise<boolean> {
    if (this.holders.has(deviceSessionId) || this.inManualUse(deviceSessionId)) return false;
    // Taken here before Redis answers, so this instance's own queue cannot hand it out twice meanwhile.
    this.holders.set(deviceSessionId, holder);
    if (!this.bus.clustered) return true;
    const value = this.valueOf(holder);
    try {
      const taken = await this.bus.redis.eval(RESERVE, 2, this.heldKey(deviceSessionId), this.manualKey(deviceSessionId), value, RESERVATION_LEASE_MS);
      if (taken === 1 && this.holders.get(deviceSessionId) === holder) {
        this.stored.set(deviceSessionId, value);
        return true;
      }
    } catch (err) {
      this.logger.warn(`Reserving device ${deviceSessionId} in Redis failed: ${(err as Error).message}`);
    }
    if (this.holders.get(deviceSessionId) === holder) this.holders.delete(deviceSessionId);
    return false;
  }

  /** Frees the device if `hubSessionId` still holds it (a late release of an ended session does nothing). */
  async release(deviceSessionId: string, hubSessionId: string): Promise<void> {
    if (this.holders.get(deviceSessionId)?.hubSessionId !== hubSessionId) return;
    this.holders.delete(deviceSessionId);
    const value = this.stored.get(deviceSessionId);
    this.stored.delete(deviceSessionId);
    if (value) await this.script(RELEASE, this.heldKey(deviceSessionId), value);
  }

  /** A session id that the reservation is known by once Appium named it. */
  async rename(deviceSessionId: string, from: string, to: string): Promise<void> {
    const holder = this.holders.get(deviceSessionId);
    if (holder?.hubSessionId !== from) return;
    holder.hubSessionId = to;
    const before = this.stored.get(deviceSessionId);
    if (!before) return;
    const after = this.valueOf(holder);
    this.stored.set(deviceSessionId, after);
    await this.script(REPLACE, this.heldKey(deviceSessionId), before, after, RESERVATION_LEASE_MS);
  }

  async holderOf(deviceSessionId: string): Promise<DeviceHolder | null> {
    return (await this.holdersOf([deviceSessionId])).get(deviceSessionId) ?? null;
  }

  /** The holders of these devices, wherever they are held (one read of Redis for all of them). */
  async holdersOf(deviceSessionIds: string[]): Promise<Map<string, DeviceHolder>> {
    const found = new Map<string, DeviceHolder>();
    const elsewhere: string[] = [];
    for (const id of deviceSessionIds) {
      const local = this.holders.get(id);
      if (local) found.set(id, local);
      else elsewhere.push(id);
    }
    if (!this.bus.clustered || !elsewhere.length) return found;
    const values = await this.bus.redis.mget(...elsewhere.map((id) => this.heldKey(id)));
    elsewhere.forEach((id, i) => {
      const stored = this.bus.stored(this.heldKey(id), values[i], storedHolderSchema, true);
      if (stored) found.set(id, { ...stored, since: new Date(stored.since) });
    });
    return found;
  }

  /** The devices among these that no automated session holds and no person controls (on any instance). */
  async freeAmong(deviceSessionIds: string[]): Promise<string[]> {
    const held = await this.holdersOf(deviceSessionIds);
    const candidates = deviceSessionIds.filter((id) => !held.has(id) && !this.inManualUse(id));
    if (!this.bus.clustered || !candidates.length) return candidates;
    const batch = this.bus.redis.pipeline();
    for (const id of candidates) batch.hvals(this.manualKey(id));
    const now = Date.now();
    const controls = (await batch.exec()) ?? [];
    return candidates.filter((_id, i) => !((controls[i]?.[1] as string[] | undefined) ?? []).some((until) => Number(until) > now));
  }

  /**
   * A person opens a control socket on the device: null when they may (with Redis, the device is
   * then marked controlled for every instance until their last socket here closes), else the
   * automated session's holder that refuses them.
   */
  async claimManual(deviceSessionId: string): Promise<DeviceHolder | null> {
    const local = this.holders.get(deviceSessionId);
    if (local || !this.bus.clustered) return local ?? null;
    const held = await this.bus.redis.eval(CLAIM_MANUAL, 2, this.heldKey(deviceSessionId), this.manualKey(deviceSessionId), this.bus.instanceId, RESERVATION_LEASE_MS);
    if (typeof held !== 'string') {
      this.manual.add(deviceSessionId);
      return null;
    }
    const stored = this.bus.stored(this.heldKey(deviceSessionId), held, storedHolderSchema, true);
    return stored ? { ...stored, since: new Date(stored.since) } : null;
  }

  /** A control socket here closed: when it was the device's last one here, other instances may reserve it at once. */
  async manualClosed(deviceSessionId: string): Promise<void> {
    if (!this.manual.has(deviceSessionId) || this.inManualUse(deviceSessionId)) return;
    this.manual.delete(deviceSessionId);
    this.unusedOnce.delete(deviceSessionId);
    await this.bus.redis.hdel(this.manualKey(deviceSessionId), this.bus.instanceId).catch(() => undefined);
  }

  /** Renews this instance's leases; a reservation found taken by another (Redis lost it meanwhile) is dropped here. */
  private async renew(): Promise<void> {
    try {
      for (const [deviceSessionId, value] of this.stored) {
        if ((await this.bus.redis.eval(RENEW, 1, this.heldKey(deviceSessionId), value, RESERVATION_LEASE_MS)) === 1) continue;
        // Its lease ran out (Redis restarted, or this process stalled): taken back unless another session has the device now.
        const back = await this.bus.redis.set(this.heldKey(deviceSessionId), value, 'PX', RESERVATION_LEASE_MS, 'NX');
        this.logger.warn(`The reservation of device ${deviceSessionId} had expired in Redis: ${back === 'OK' ? 'taken back' : 'another instance holds it now'}`);
      }
      for (const deviceSessionId of this.manual) {
        if (!this.inManualUse(deviceSessionId)) {
          // Twice in a row: a socket admitted a moment ago may not be registered yet.
          if (this.unusedOnce.delete(deviceSessionId)) await this.manualClosed(deviceSessionId);
          else this.unusedOnce.add(deviceSessionId);
          continue;
        }
        this.unusedOnce.delete(deviceSessionId);
        const key = this.manualKey(deviceSessionId);
        const [seconds, micros] = await this.bus.redis.time();
        await this.bus.redis.multi().hset(key, this.bus.instanceId, Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + RESERVATION_LEASE_MS).pexpire(key, RESERVATION_LEASE_MS).exec();
      }
    } catch (err) {
      this.logger.warn(`Renewing device reservations in Redis failed (retried in ${RENEW_EVERY_MS / 1000} s): ${(err as Error).message}`);
    }
  }

  private async script(lua: string, key: string, ...args: (string | number)[]): Promise<void> {
    await this.bus.redis.eval(lua, 1, key, ...args).catch((err: Error) => {
      this.logger.warn(`Updating the reservation ${key} in Redis failed (its lease expires by itself): ${err.message}`);
    });
  }

  private valueOf(holder: DeviceHolder): string {
    return JSON.stringify({ ...holder, instanceId: this.bus.instanceId, since: holder.since.getTime() });
  }

  private heldKey(deviceSessionId: string): string {
    return this.bus.key(`devices:held:${deviceSessionId}`);
  }

  private manualKey(deviceSessionId: string): string {
    return this.bus.key(`devices:manual:${deviceSessionId}`);
  }

  private inManualUse(deviceSessionId: string): boolean {
    return this.clients.of(deviceSessionId).some((client) => !client.video);
  }
}
