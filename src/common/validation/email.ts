import { isEmail } from 'class-validator';

/** The same e-mail rule as the DTOs' @IsEmail, for values that arrive as multipart fields. */
export function isEmailAddress(value: string): boolean {
  return value.length <= 320 && isEmail(value);
}
