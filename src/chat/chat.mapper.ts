import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What a Slack button press did (Slack reads only the 200; people and tests read the body). */
export class SlackActionAnswer {
  @ApiProperty({ enum: ['applied', 'refused', 'ignored'], example: 'refused' })
  outcome: 'applied' | 'refused' | 'ignored';

  @ApiPropertyOptional({ example: 'Viewers cannot review builds: a review needs the Admin, Developer or QA role' })
  reason?: string;
}
