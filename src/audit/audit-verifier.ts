import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import { ChainBreak, ChainWalker } from './audit-chain';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditStateEntity } from './audit-state.entity';
import { parseDetails } from './audit.mapper';

export interface VerifyResult {
  checked: number;
  anchorId: number | null;
  broken: ChainBreak | null;
}

/** `svc audit verify`: recomputes every kept entry's hash from the table, in id order, from the anchor. */
@Injectable()
export class AuditVerifier {
  constructor(
    @InjectRepository(AuditEntryEntity) private readonly entries: Repository<AuditEntryEntity>,
    @InjectRepository(AuditStateEntity) private readonly state: Repository<AuditStateEntity>,
  ) {}

  async verify(batch = 1000): Promise<VerifyResult> {
    const state = await this.state.findOneBy({ id: 1 });
    if (!state) return { checked: 0, anchorId: null, broken: { id: null, reason: 'the audit state row is missing' } };
    const walker = new ChainWalker(state.anchorHash);
    let after = 0;
    for (;;) {
      const rows = await this.entries.find({ where: { id: MoreThan(after) }, order: { id: 'ASC' }, take: batch });
      for (const row of rows) {
        const broken = walker.next({ ...row, details: parseDetails(row.details) });
        if (broken) return { checked: walker.checked, anchorId: state.anchorId, broken };
      }
      if (rows.length < batch) break;
      after = rows[rows.length - 1].id;
    }
    return { checked: walker.checked, anchorId: state.anchorId, broken: walker.finish(state.headHash) };
  }
}
