import { Module } from '@nestjs/common';
import { ClusterBus } from './cluster-bus';
import { ClusterEventsBridge } from './cluster-events.bridge';

/** What several instances share through Redis (docs/scaling.md); inert without SVC_REDIS_URL. */
@Module({ providers: [ClusterBus, ClusterEventsBridge], exports: [ClusterBus, ClusterEventsBridge] })
export class ClusterModule {}
