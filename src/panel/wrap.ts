/** Text laid out in a column of a terminal: wrapped at words, or cut short. Pure. */

/** Cut to `width` columns, with an ellipsis. */
export function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}

/**
 * Wrapped at spaces to `width` columns, keeping the text's own leading spaces;
 * continuation lines start after `indent` spaces. A word longer than a line
 * (a long path) is broken where the line ends.
 */
export function wrap(text: string, width: number, indent = 0): string[] {
  const columns = Math.max(1, Math.floor(width));
  const lead = " ".repeat(Math.min(indent, Math.floor(columns / 2)));
  const start = /^ */.exec(text)?.[0] ?? "";
  const lines: string[] = [];
  let line = start;
  let bare = true;
  for (const word of text.slice(start.length).split(" ")) {
    const candidate = bare ? `${line}${word}` : `${line} ${word}`;
    if ([...candidate].length <= columns) {
      line = candidate;
      bare = false;
      continue;
    }
    const alone = [...lead, ...word];
    if (!bare && alone.length <= columns) {
      lines.push(line);
      line = alone.join("");
      continue;
    }
    // Too long for any line: broken, starting where this line has room. Each pass takes at least half a line (the indent is at most half of it).
    let rest = bare ? [...line, ...word] : [...line, " ", ...word];
    while (rest.length > columns) {
      lines.push(rest.slice(0, columns).join(""));
      rest = [...lead, ...rest.slice(columns)];
    }
    line = rest.join("");
    bare = false;
  }
  lines.push(line);
  return lines;
}
