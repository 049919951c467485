/**
 * The relay's `{ error }` messages are terse ("token is required", "Invalid email or password"):
 * shown in the dashboard they read as sentences, capitalised and ending with a full stop. A message
 * that starts with a field name keeps it as written ("team_name must…" → "Team_name must…."), so
 * the form still finds the field it names (ui/form-errors.ts matches ignoring case).
 */
export function asSentence(message: string): string {
  const text = message.trim();
  if (!text) return text;
  const capitalised = text[0].toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
