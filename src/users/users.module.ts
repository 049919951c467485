import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PasswordHasher } from './password-hasher';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { MemberGuardrails } from './member-guardrails.service';
import { CommonModule } from '../common/common.module';
import { ClusterModule } from '../cluster/cluster.module';

@Module({
  imports: [ClusterModule, CommonModule, TypeOrmModule.forFeature([UserEntity])],
  providers: [UsersService, UsersRepository, PasswordHasher, MemberGuardrails],
  exports: [UsersService, PasswordHasher, MemberGuardrails],
})
export class UsersModule {}
