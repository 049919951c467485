/**
 * The relay answers one `{ error }` message per request. When the message names one of the form's
 * fields (validation messages start with the field's name, e.g. "password must be…"), it belongs
 * under that field; otherwise it is the form's.
 */
export function splitError(
  error: { message: string } | null | undefined,
  fields: Record<string, RegExp>,
): { field: string | null; message: string | null } {
  if (!error) return { field: null, message: null };
  for (const [field, pattern] of Object.entries(fields)) {
    if (pattern.test(error.message)) return { field, message: error.message };
  }
  return { field: null, message: error.message };
}
