import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';

/** Cross-cutting providers every feature may inject. */
@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class CommonModule {}
