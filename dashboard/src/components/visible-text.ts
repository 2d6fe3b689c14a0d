// Text that others wrote is shown as it is written. Bidirectional control characters (U+202E
// RIGHT-TO-LEFT OVERRIDE and its kin) reorder how the text around them is displayed: a tool call's
// argument or a title could show something other than what it says (an approver reading `rm -rf /`
// backwards). Other control characters (U+0000 NUL, ESC, DEL, the C1 range) show as nothing at all,
// so `a\u0000b` would read `ab`. Both are written out as escapes instead; line breaks and tabs stay.
const HIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each bidirectional or (other than a line break or tab) control character written as its `\uXXXX` escape. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
