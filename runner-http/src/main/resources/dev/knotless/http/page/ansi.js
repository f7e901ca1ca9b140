// Log lines into DOM nodes: ANSI colours (SGR) become spans with classes or computed colours,
// `::group::` lines become nested sections. Run output is hostile: it only ever becomes text nodes
// (textContent), class names from a fixed list, and colours computed from numbers.
"use strict";

const SGR = /\u001b\[([0-9;:]*)m/g;
const MAX_GROUP_DEPTH = 8; // deeper ::group:: lines are shown as text: a run cannot nest without end

function stripSgr(text) { return text.replace(SGR, ""); }

// The 256-colour cube and grey ramp, as rgb() of numbers.
function colour256(n) {
  if (n < 16) return null;
  if (n >= 232) { const g = 8 + (n - 232) * 10; return `rgb(${g}, ${g}, ${g})`; }
  const i = n - 16, steps = [0, 95, 135, 175, 215, 255];
  return `rgb(${steps[Math.floor(i / 36)]}, ${steps[Math.floor(i / 6) % 6]}, ${steps[i % 6]})`;
}

function byte(v) { const n = Number(v); return Number.isInteger(n) && n >= 0 && n <= 255 ? n : 0; }

// Applies one SGR parameter list to the state {fg, bg, bold, dim, italic, underline}.
function applySgr(state, params) {
  const p = params === "" ? [0] : params.split(/[;:]/).map(x => x === "" ? 0 : Number(x));
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === 0) { Object.assign(state, {fg: null, bg: null, bold: false, dim: false, italic: false, underline: false}); }
    else if (c === 1) state.bold = true;
    else if (c === 2) state.dim = true;
    else if (c === 3) state.italic = true;
    else if (c === 4) state.underline = true;
    else if (c === 22) { state.bold = false; state.dim = false; }
    else if (c === 23) state.italic = false;
    else if (c === 24) state.underline = false;
    else if (c >= 30 && c <= 37) state.fg = c - 30;
    else if (c >= 90 && c <= 97) state.fg = c - 90 + 8;
    else if (c === 39) state.fg = null;
    else if (c >= 40 && c <= 47) state.bg = c - 40;
    else if (c >= 100 && c <= 107) state.bg = c - 100 + 8;
    else if (c === 49) state.bg = null;
    else if (c === 38 || c === 48) {
      let value = null;
      if (p[i + 1] === 5) { const n = byte(p[i + 2]); value = n < 16 ? n : colour256(n); i += 2; }
      else if (p[i + 1] === 2) {
        // 38;2;r;g;b, or the colon form 38:2::r:g:b with an empty colour-space id
        const rgb = p.length - i >= 6 && params.includes(":") ? p.slice(i + 3, i + 6) : p.slice(i + 2, i + 5);
        value = `rgb(${byte(rgb[0])}, ${byte(rgb[1])}, ${byte(rgb[2])})`;
        i += p.length - i >= 6 && params.includes(":") ? 5 : 4;
      } else break;
      if (c === 38) state.fg = value; else state.bg = value;
    }
  }
}

// One line of text with SGR sequences as a fragment of spans and text nodes.
function renderAnsi(text) {
  const frag = document.createDocumentFragment();
  const state = {fg: null, bg: null, bold: false, dim: false, italic: false, underline: false};
  let last = 0;
  const push = (chunk) => {
    if (!chunk) return;
    const plain = state.fg === null && state.bg === null && !state.bold && !state.dim && !state.italic && !state.underline;
    if (plain) { frag.append(document.createTextNode(chunk)); return; }
    const span = document.createElement("span");
    const classes = [];
    if (typeof state.fg === "number") classes.push("fg-" + state.fg); else if (state.fg) span.style.color = state.fg;
    if (typeof state.bg === "number") classes.push("bg-" + state.bg); else if (state.bg) span.style.backgroundColor = state.bg;
    if (state.bold) classes.push("bold");
    if (state.dim) classes.push("dim");
    if (state.italic) classes.push("italic");
    if (state.underline) classes.push("underline");
    span.className = classes.join(" ");
    span.textContent = chunk;
    frag.append(span);
  };
  for (const m of text.matchAll(SGR)) {
    push(text.substring(last, m.index));
    applySgr(state, m[1]);
    last = m.index + m[0].length;
  }
  push(text.substring(last));
  return frag;
}

// A section of log: a <details> whose body takes lines, with ::group:: sections nested in it.
class LogSection {
  constructor(body) { this.stack = [body]; this.count = 0; }

  // Adds one line (without its line break); cls is "stdout", "stderr" or "notice".
  line(text, cls) {
    const plain = stripSgr(text);
    if (plain.startsWith("::group::") && this.stack.length <= MAX_GROUP_DEPTH) {
      const body = document.createElement("div");
      body.className = "group-body";
      const summary = document.createElement("summary");
      summary.textContent = plain.substring("::group::".length).trim() || "group";
      const details = document.createElement("details");
      details.className = "group";
      details.append(summary, body);
      this.top().append(details);
      this.stack.push(body);
      return;
    }
    if (plain.trim() === "::endgroup::" && this.stack.length > 1) {
      this.stack.pop();
      return;
    }
    const row = document.createElement("div");
    row.className = "line " + (cls || "stdout");
    const number = document.createElement("span");
    number.className = "ln";
    number.textContent = String(++this.count);
    const content = document.createElement("span");
    content.className = "text";
    content.append(renderAnsi(cls === "notice" ? "[knotless] " + text : text));
    row.append(number, content);
    // The runner's own notices stand at the step's level: a group a run left open cannot hide them.
    (cls === "notice" ? this.stack[0] : this.top()).append(row);
  }

  top() { return this.stack[this.stack.length - 1]; }
}
