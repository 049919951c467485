import { ApiProperty } from '@nestjs/swagger';

/** POST /team/members/:id/send-reset (spec §4 Password reset). */
export class SendResetResponse {
  @ApiProperty({ enum: [true], example: true })
  ok: true;
  @ApiProperty({ description: 'false when SMTP is not configured or the member has no e-mail' })
  emailSent: boolean;
  @ApiProperty({ description: 'works once, for 2 hours' })
  token: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the link the e-mail carries; null when no address a teammate can open is known',
  })
  resetUrl: string | null;
}
