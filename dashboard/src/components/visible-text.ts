// Bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reorder how the text
// around them is displayed: a tool call's argument or a title could show something other than what
// it says (an approver reading `rm -rf /` backwards). Text that others wrote is shown with them
// written out as escapes instead.
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each bidirectional control character written as its `\uXXXX` escape. */
export function visibleText(text: string): string {
  return text.replace(BIDI_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
