import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What a Slack button press did (Slack reads only the 200; people and tests read the body). */
export class SlackActionAnswer {
  @ApiProperty({ enum: ['applied', 'refused', 'ignored'], example: 'refused' })
  outcome: 'applied' | 'refused' | 'ignored';

  @ApiPropertyOptional({ example: 'Viewers cannot review builds: a review needs the Admin, Developer or QA role' })
  reason?: string;
}

/** Slack's configuration as Admins see it: variable names and whether each is set, never a value. */
export class SlackSettings {
  @ApiProperty({ example: 'SVC_SLACK_BOT_TOKEN' }) bot_token_env: string;
  @ApiProperty() has_bot_token: boolean;
  @ApiProperty({ example: 'SVC_SLACK_SIGNING_SECRET' }) signing_secret_env: string;
  @ApiProperty() has_signing_secret: boolean;
  @ApiProperty({ type: String, nullable: true, description: "Interactivity's Request URL to give Slack; null without a public URL" })
  request_url: string | null;
}

/** One chat destination (svc.config.json's have no id and cannot be removed here). */
export class ChatRouteItem {
  @ApiProperty({ type: 'integer', nullable: true }) id: number | null;
  @ApiProperty({ enum: ['file', 'dashboard'] }) origin: 'file' | 'dashboard';
  @ApiProperty({ enum: ['slack', 'teams'] }) kind: 'slack' | 'teams';
  @ApiProperty({ type: String, nullable: true, example: 'C0123ABCD' }) channel: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'qa' }) name: string | null;
  @ApiProperty({ type: [String], nullable: true }) apps: string[] | null;
  @ApiProperty({ type: [String], nullable: true }) branches: string[] | null;
  @ApiProperty({ type: String, nullable: true, description: 'why it gets no notices; null when it does' }) problem: string | null;
}

export class ChatSettings {
  @ApiProperty({ type: SlackSettings, nullable: true }) slack: SlackSettings | null;
  @ApiProperty({ type: [ChatRouteItem] }) routes: ChatRouteItem[];
}

export function toChatRouteItem(r: { id: number | null; origin: 'file' | 'dashboard'; kind: 'slack' | 'teams'; target: string; apps: string[] | null; branches: string[] | null; problem: string | null }): ChatRouteItem {
  return {
    id: r.id,
    origin: r.origin,
    kind: r.kind,
    channel: r.kind === 'slack' ? r.target : null,
    name: r.kind === 'teams' ? r.target : null,
    apps: r.apps,
    branches: r.branches,
    problem: r.problem,
  };
}
