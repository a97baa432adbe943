/**
 * Text from files and repositories as a person or the model is shown it:
 * control characters (C0, DEL, C1) as `?`, so that a name or a line holding a
 * newline or an escape sequence cannot split, forge or erase lines in a
 * terminal, a CI log or a message. Pure.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is replaced
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

export const shownText = (text: string): string => text.replace(CONTROLS, "?");
