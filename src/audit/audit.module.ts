import { CommonModule } from '../common/common.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditLogRepository } from './audit-log.repository';
import { AuditPendingEntity } from './audit-pending.entity';
import { AuditLogService } from './audit-log.service';
import { AuditQueryService } from './audit-query.service';
import { AuditRecorderListener } from './audit-recorder.listener';
import { AuditStateEntity } from './audit-state.entity';
import { AuditController } from './audit.controller';
import { AuditVerifier } from './audit-verifier';
import { AuditForwarder } from './forwarding/audit-forwarder';

/**
 * The tamper-evident audit log (docs/audit.md): owns audit_entries, audit_pending and audit_state. Other modules
 * never import it: they emit AuditEvent (audit-event.ts) and this module records it.
 */
@Module({
  imports: [CommonModule, TypeOrmModule.forFeature([AuditEntryEntity, AuditPendingEntity, AuditStateEntity])],
  controllers: [AuditController],
  providers: [AuditLogService, AuditLogRepository, AuditQueryService, AuditRecorderListener, AuditForwarder, AuditVerifier],
  exports: [AuditLogService, AuditVerifier],
})
export class AuditModule {}
