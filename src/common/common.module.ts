import { Module } from '@nestjs/common';
import { Clock } from './clock';

/** The injectable `Clock` (tests move it forward), imported by the modules that read the time. */
@Module({ providers: [Clock], exports: [Clock] })
export class CommonModule {}
