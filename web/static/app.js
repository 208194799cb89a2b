// The page: upload a photo, show what was read, edit the grid with live checks, solve; or solve it
// yourself: a hint for the next cell, the player's digits checked right or wrong, the solution
// hidden until revealed.
// The grid is kept as text-format tokens ("#", ".", "5", "23\16"); the server does all the rules.
// A digit in a white cell is a given (part of the puzzle) or the player's entry: `givens` says which.
"use strict";

const MAX_UPLOAD_MB = 20;
const $ = (id) => document.getElementById(id);

const state = {
  tokens: [],          // [row][col] token as the user means it
  solution: null,      // [row][col] digit or null, from the last solve
  result: null,        // last /api/solve or /api/read puzzle object
  photo: null,         // {id, width, height, preview} of the last upload
  puzzles: [],         // puzzles read from the photo
  index: 0,            // which of them is in the grid
  readTokens: null,    // the grid as read, to mark what the user changed
  corrected: new Set(),// "r,c" (0-based) of clues the reader's rules corrected
  suspects: new Set(), // "r,c" (0-based) of clues the reader trusts least, when not solved
  givens: null,        // Set of "r,c" (0-based) whose digit belongs to the puzzle; every other digit in a
                       // white cell is the player's entry. null: not known yet (a grid typed by hand)
  marks: new Map(),    // "r,c" (0-based) -> true / false: an entry checked right or wrong
  hint: null,          // {row, col, digit, cells: Set of "r,c"} (0-based) of the hint shown
  revealed: true,      // whether the solution's digits are shown in the empty white cells
  readAnnotated: null, // URL of the annotated image made by the read (every puzzle of the photo)
  images: {solved: null, progress: null, hint: null},  // URLs: the solution, the entries checked, the hint
  checkSeq: 0,
  checkTimer: null,
};

// ------------------------------------------------------------------------------------------
// Small helpers

function setStatus(text, kind) {
  const el = $("status");
  el.textContent = text || "";
  el.className = "status" + (kind ? " " + kind : "");
}

function isWhite(token) { return token === "." || /^[1-9]$/.test(token); }
function isClueText(text) { return /^\d*\\\d*$/.test(text) && /\d/.test(text); }

async function postJson(url, body) {
  const resp = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body)});
  return readResponse(resp);
}

async function readResponse(resp) {
  let data = null;
  try { data = await resp.json(); } catch (e) { /* not JSON: a proxy or a crash */ }
  if (!resp.ok) {
    const message = data && data.error ? data.error : `the server answered ${resp.status} ${resp.statusText}`;
    throw new Error(message);
  }
  return data;
}

function download(anchor, name, content, type) {
  if (anchor.dataset.url) URL.revokeObjectURL(anchor.dataset.url);
  const url = URL.createObjectURL(new Blob([content], {type}));
  anchor.dataset.url = url;
  anchor.href = url;
  anchor.download = name;
  anchor.hidden = false;
}

// ------------------------------------------------------------------------------------------
// Upload

function uploadFile(file) {
  if (!file) return;
  if (file.size > MAX_UPLOAD_MB * 1024 * 1024) {
    setStatus(`${file.name}: the file is larger than ${MAX_UPLOAD_MB} MB; send a smaller photo`, "error");
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name || "photo.jpg");
  setStatus(`Reading ${file.name || "the photo"}…`, "busy");
  setBusy(true);
  fetch("/api/read", {method: "POST", body: form})
    .then(readResponse)
    .then(showReading)
    .catch((err) => setStatus(err.message, "error"))
    .finally(() => setBusy(false));
}

function setBusy(busy) {
  for (const id of ["solve", "new-grid", "hint", "check-progress", "hint-force"]) $(id).disabled = busy;
}

function showReading(doc) {
  state.photo = doc.photo;
  state.puzzles = doc.puzzles;
  state.readAnnotated = doc.annotated;
  state.progressImage = doc.progress || null;
  const select = $("puzzle-select");
  select.innerHTML = "";
  doc.puzzles.forEach((p, i) => {
    const opt = document.createElement("option");
    opt.value = i;
    opt.textContent = `Puzzle ${i + 1} of ${doc.puzzles.length} (${p.rows}×${p.cols}, ${p.status})`;
    select.appendChild(opt);
  });
  select.hidden = doc.puzzles.length < 2;
  $("photo-pane").hidden = false;
  choosePuzzle(0);
  const n = doc.puzzles.length;
  const solved = doc.puzzles.filter((p) => p.status === "solved").length;
  const written = doc.puzzles.some((p) => p.written && p.written.length);
  setStatus(`${doc.input}: ${n} puzzle${n > 1 ? "s" : ""} found, ${solved} solved (${doc.seconds} s). ` +
            (written ? "Your digits are checked below; the solution stays hidden until you reveal it."
                     : "Check the clues against the photo; edit any that are wrong and press Solve."));
}

function choosePuzzle(index) {
  state.index = index;
  const p = state.puzzles[index];
  const tokens = (p.grid || p.layout || [["#"]]).map((row) => row.slice());
  state.readTokens = p.grid ? tokens.map((row) => row.slice()) : null;
  state.corrected = new Set((p.corrections || []).map((c) => `${c.row - 1},${c.col - 1}`));
  state.suspects = p.status === "solved" ? new Set()
    : new Set((p.suspects || []).map((c) => `${c.row - 1},${c.col - 1}`));
  // The digits written on the photo are the player's: back in their cells, checked, and the
  // solution kept hidden until asked for ("check my progress").
  const written = p.grid ? (p.written || []) : [];
  for (const w of written) tokens[w.row - 1][w.col - 1] = String(w.digit);
  loadTokens(tokens);
  state.givens = p.grid ? digitCells(p.grid) : null;
  state.revealed = written.length === 0;
  state.images = {solved: state.readAnnotated, progress: written.length ? state.progressImage : null, hint: null};
  drawPhoto();
  showResult(p);
}

function digitCells(grid) {
  const cells = new Set();
  grid.forEach((row, r) => row.forEach((t, c) => { if (/^[1-9]$/.test(String(t))) cells.add(`${r},${c}`); }));
  return cells;
}

function drawPhoto() {
  const svg = $("photo-svg");
  const {width, height, preview} = state.photo;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const ns = "http://www.w3.org/2000/svg";
  svg.innerHTML = "";
  const img = document.createElementNS(ns, "image");
  img.setAttribute("href", preview);
  img.setAttribute("width", width);
  img.setAttribute("height", height);
  svg.appendChild(img);
  state.puzzles.forEach((p, i) => {
    if (!p.corners) return;
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", p.corners.map(([x, y]) => `${x},${y}`).join(" "));
    poly.setAttribute("class", i === state.index ? "found" : "other");
    poly.addEventListener("click", () => { $("puzzle-select").value = i; choosePuzzle(i); });
    svg.appendChild(poly);
  });
  updatePhoto();
}

function currentImage() {
  // The solved photo only once the solution is revealed; else the hint, or the entries checked.
  const images = state.images;
  if (state.revealed && images.solved) return {url: images.solved, label: "Show solved photo"};
  if (images.hint) return {url: images.hint, label: "Show the hint on the photo"};
  if (images.progress) return {url: images.progress, label: "Show your digits checked"};
  return null;
}

function updatePhoto() {
  if (!state.photo) return;
  const image = currentImage();
  $("photo-toggle").hidden = !image;
  if (image) {
    if ($("annotated").getAttribute("src") !== image.url) $("annotated").src = image.url;
    showAnnotated(true);
  } else {
    showAnnotated(false);
  }
}

function showAnnotated(show) {
  const image = currentImage();
  show = show && !!image;
  $("annotated").hidden = !show;
  $("photo-svg").style.display = show ? "none" : "";
  $("photo-toggle").textContent = show ? "Show the found grid" : (image ? image.label : "");
}

// ------------------------------------------------------------------------------------------
// The grid

function emptyTokens(rows, cols) {
  // A frame of dark cells around white ones is the usual start of a hand-made grid.
  return Array.from({length: rows}, (_, r) =>
    Array.from({length: cols}, (_, c) => (r === 0 || c === 0 ? "#" : ".")));
}

function loadTokens(tokens) {
  state.tokens = tokens.map((row) => row.map((t) => String(t)));
  state.solution = null;
  state.marks = new Map();
  state.hint = null;
  showHint(null);
  showGrade(null);
  $("progress").hidden = true;
  $("rows").value = tokens.length;
  $("cols").value = tokens[0].length;
  renderGrid();
  scheduleCheck(0);
}

function renderGrid() {
  const grid = $("grid");
  const rows = state.tokens.length, cols = state.tokens[0].length;
  document.documentElement.style.setProperty("--cols", cols);
  grid.style.setProperty("--cols", cols);
  grid.innerHTML = "";
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const input = document.createElement("input");
      input.className = "cell";
      input.dataset.row = r + 1;
      input.dataset.col = c + 1;
      input.autocomplete = "off";
      input.spellcheck = false;
      input.setAttribute("aria-label", `row ${r + 1}, column ${c + 1}`);
      grid.appendChild(input);
      paintCell(input, r, c);
    }
  }
}

function cellInput(r, c) {
  return $("grid").querySelector(`.cell[data-row="${r + 1}"][data-col="${c + 1}"]`);
}

function isEntry(r, c) {
  // A digit the player entered: in a white cell, and not one the puzzle gives.
  return /^[1-9]$/.test(state.tokens[r][c]) && state.givens !== null && !state.givens.has(`${r},${c}`);
}

function paintCell(input, r, c) {
  const token = state.tokens[r][c];
  const white = isWhite(token);
  const key = `${r},${c}`;
  const shown = state.revealed && state.solution && state.solution[r] && state.solution[r][c];
  input.classList.remove("white", "black", "clue", "given", "solution", "entry", "entry-right", "entry-wrong",
                         "hint", "hint-used");
  input.placeholder = "";
  delete input.dataset.hint;
  if (white) {
    const digit = /^[1-9]$/.test(token);
    const entry = digit && isEntry(r, c);
    input.classList.add("white");
    if (entry) {
      input.classList.add("entry");
      if (state.marks.has(key)) input.classList.add(state.marks.get(key) ? "entry-right" : "entry-wrong");
    } else if (digit) {
      input.classList.add("given");
    } else if (shown) {
      input.classList.add("solution");
    }
    input.value = digit ? token : (shown ? String(shown) : "");
    input.inputMode = "numeric";
    if (state.hint && state.hint.cells.has(key)) input.classList.add("hint-used");
    if (state.hint && state.hint.row === r && state.hint.col === c) {
      input.classList.add("hint");
      input.dataset.hint = state.hint.digit;
      if (!digit) input.placeholder = String(state.hint.digit);
    }
  } else {
    input.classList.add(token === "#" ? "black" : "clue");
    input.value = token === "#" ? "" : token;
    input.inputMode = "text";
  }
  input.classList.toggle("corrected", isCorrected(r, c));
  input.classList.toggle("suspect", state.suspects.has(`${r},${c}`));
  input.readOnly = $("toggle-mode").checked;
}

function isCorrected(r, c) {
  // Corrected by the reader's rules, or a clue the user changed from what was read.
  if (state.corrected.has(`${r},${c}`)) return true;
  const read = state.readTokens && state.readTokens[r] && state.readTokens[r][c];
  const token = state.tokens[r][c];
  return read !== undefined && read !== null && read !== token && !(isWhite(read) && isWhite(token));
}

function tokenFromTyping(text, wasWhite) {
  const v = text.trim().replace(/\//g, "\\").replace(/\s+/g, "");
  if (wasWhite) {
    if (v === "" || v === "." || v === "0") return ".";
    if (/^[1-9]$/.test(v)) return v;
    if (/^[1-9]\d$/.test(v)) return v.slice(-1);  // typing over a digit replaces it
    if (v === "#") return "#";
    return v;  // a clue typed into a white cell makes it a clue cell
  }
  if (v === "" || v === "#") return "#";
  if (v === ".") return ".";
  return v;
}

function onCellInput(event) {
  const input = event.target;
  const r = input.dataset.row - 1, c = input.dataset.col - 1;
  const wasWhite = isWhite(state.tokens[r][c]);
  const token = tokenFromTyping(input.value, wasWhite);
  state.tokens[r][c] = token;
  if (wasWhite && isWhite(token) && state.givens !== null && !state.givens.has(`${r},${c}`)) {
    // The player's digit: the puzzle is unchanged, its solution stands (hidden or not).
    state.marks.delete(`${r},${c}`);
    if (state.hint) clearHint();
    paintCell(input, r, c);
    return;
  }
  clearSolution();
  if (isWhite(token) !== wasWhite) {
    paintCell(input, r, c);
    if (!isWhite(token) && token !== "#") input.value = token;
  } else if (wasWhite) {
    paintCell(input, r, c);
  } else {
    input.classList.toggle("clue", token !== "#");
    input.classList.toggle("black", token === "#");
    input.classList.toggle("corrected", isCorrected(r, c));
  }
  scheduleCheck();
}

function onCellClick(event) {
  const input = event.target;
  if (!input.classList.contains("cell") || !$("toggle-mode").checked) return;
  const r = input.dataset.row - 1, c = input.dataset.col - 1;
  state.tokens[r][c] = isWhite(state.tokens[r][c]) ? "#" : ".";
  clearSolution();
  paintCell(input, r, c);
  scheduleCheck();
}

function onCellKey(event) {
  const input = event.target;
  if (!input.classList.contains("cell")) return;
  const moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
  const move = moves[event.key];
  if (!move) return;
  // Inside a clue being typed, left/right move the caret, not the focus.
  if (move[0] === 0 && input.classList.contains("clue") && !input.readOnly) {
    const atStart = input.selectionStart === 0, atEnd = input.selectionEnd === input.value.length;
    if ((move[1] < 0 && !atStart) || (move[1] > 0 && !atEnd)) return;
  }
  const target = cellInput(input.dataset.row - 1 + move[0], input.dataset.col - 1 + move[1]);
  if (target) { event.preventDefault(); target.focus(); target.select(); }
}

function clearSolution() {
  // The puzzle changed: its solution, grade, hint and the checks of the player's digits no longer apply.
  const marked = state.marks.size > 0 || state.hint !== null;
  state.marks = new Map();
  state.hint = null;
  showHint(null);
  $("progress").hidden = true;
  state.images.hint = null;
  state.images.progress = null;
  if (!state.solution && !state.result && !marked) { updatePhoto(); return; }
  state.solution = null;
  state.result = null;
  state.images.solved = null;  // the solved photo no longer matches the grid
  $("result").hidden = true;
  $("reveal").hidden = true;
  showGrade(null);
  updatePhoto();
  repaintGrid();
}

function repaintGrid() {
  for (const input of $("grid").querySelectorAll(".cell")) {
    paintCell(input, input.dataset.row - 1, input.dataset.col - 1);
  }
}

// ------------------------------------------------------------------------------------------
// Live checks: the server names every rule broken; red where broken, green where a clue fits

function requestTokens() {
  // The puzzle, and the player's entries apart (the server checks them against its solution).
  // A dark cell holding digits but no backslash is half typed: check the rest without it.
  const local = [];
  const entries = [];
  const tokens = state.tokens.map((row, r) => row.map((t, c) => {
    if (/^[1-9]$/.test(t) && isEntry(r, c)) {
      entries.push({row: r + 1, col: c + 1, digit: Number(t)});
      return ".";
    }
    if (isWhite(t) || t === "#" || isClueText(t)) return t;
    local.push({row: r + 1, col: c + 1, direction: null, rule: "bad-token",
                message: `row ${r + 1}, column ${c + 1}: "${t}" is not a clue; type it as 23\\16, 23\\ or \\16`});
    return "#";
  }));
  return {tokens, entries, local};
}

function puzzleBody() {
  // The body of /api/solve and /api/hint; null (and the reason shown) while a clue is half typed.
  clearTimeout(state.checkTimer);
  const {tokens, entries, local} = requestTokens();
  if (local.length) {
    showProblems(local);
    setStatus("Finish typing the clues marked red first.", "error");
    return null;
  }
  const body = {grid: tokens, entries};
  if (state.photo && state.readTokens) { body.photo = state.photo.id; body.index = state.index; }
  return body;
}

function scheduleCheck(delay = 250) {
  clearTimeout(state.checkTimer);
  state.checkTimer = setTimeout(runCheck, delay);
}

async function runCheck() {
  const seq = ++state.checkSeq;
  const {tokens, local} = requestTokens();
  let checks;
  try {
    checks = await postJson("/api/check", {grid: tokens});
  } catch (err) {
    if (seq === state.checkSeq) showProblems([{message: err.message}]);
    return;
  }
  if (seq !== state.checkSeq) return;  // a newer edit is being checked
  checks.problems = local.concat(checks.problems);
  applyChecks(checks);
}

function applyChecks(checks) {
  const cells = $("grid").querySelectorAll(".cell");
  const marks = new Map();  // "r,c" 1-based -> {bad, good, tips}
  const mark = (r, c) => {
    const key = `${r},${c}`;
    if (!marks.has(key)) marks.set(key, {bad: false, good: false, badRun: false, tips: []});
    return marks.get(key);
  };
  for (const run of checks.runs) {
    const m = mark(run.row, run.col);
    if (run.ok) {
      m.good = true;
      const combos = run.combos.map((k) => k.join("")).join(" ");
      m.tips.push(`${run.direction} ${run.total} in ${run.length}: ${combos}${run.n_combos > run.combos.length ? " …" : ""}`);
    } else {
      for (const [r, c] of run.cells) mark(r, c).badRun = true;
    }
  }
  for (const p of checks.problems) {
    if (p.row == null) continue;
    const m = mark(p.row, p.col);
    m.bad = true;
    m.tips.push(p.message);
  }
  for (const input of cells) {
    const m = marks.get(`${input.dataset.row},${input.dataset.col}`);
    input.classList.toggle("bad", !!(m && m.bad));
    input.classList.toggle("good", !!(m && m.good && !m.bad));
    input.classList.toggle("bad-run", !!(m && m.badRun));
    input.title = m ? m.tips.join("\n") : "";
  }
  $("totals").textContent = checks.runs.length
    ? `Across clues total ${checks.across}, down clues total ${checks.down}` +
      (checks.across === checks.down ? " (equal, as they must be)." : " — they must be equal: a clue is wrong.")
    : "";
  showProblems(checks.problems);
}

function showProblems(problems) {
  const list = $("problems");
  list.innerHTML = "";
  for (const p of problems.slice(0, 30)) {
    const li = document.createElement("li");
    li.textContent = p.message;
    list.appendChild(li);
  }
  if (problems.length > 30) {
    const li = document.createElement("li");
    li.textContent = `… and ${problems.length - 30} more`;
    list.appendChild(li);
  }
}

// ------------------------------------------------------------------------------------------
// Solve and show

async function solve(reveal = true) {
  const body = puzzleBody();
  if (!body) return;
  setStatus(reveal ? "Solving…" : "Checking your digits…", "busy");
  setBusy(true);
  try {
    const doc = await postJson("/api/solve", body);
    if (doc.status === "solved") state.suspects = new Set();
    if (reveal) {
      state.revealed = true;
      clearHint();
    }
    state.images.solved = doc.annotated || null;
    state.images.progress = null;  // the photo's digits as read: the grid's are checked now
    showResult(doc);
    updatePhoto();
    if (doc.checks) applyChecks(doc.checks);
    setStatus(reveal ? "" : progressSummary(doc).text || "No digits of yours to check: type them in the white cells.");
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    setBusy(false);
  }
}

// ------------------------------------------------------------------------------------------
// Solving it yourself: a hint, the player's digits checked, the solution revealed on request

async function hint(force = false) {
  const body = puzzleBody();
  if (!body) return;
  body.force = force;
  setStatus(force ? "Searching for a cell that must hold one digit…" : "Looking for the next step…", "busy");
  setBusy(true);
  try {
    const doc = await postJson("/api/hint", body);
    applyWritten(doc.written, doc.status);
    state.revealed = false;  // a hint, not the answer: the rest of the solution stays hidden
    state.hint = doc.step ? {row: doc.step.row - 1, col: doc.step.col - 1, digit: doc.step.digit,
                             cells: new Set(doc.step.cells.map(([r, c]) => `${r - 1},${c - 1}`))} : null;
    state.images.hint = doc.annotated || null;
    repaintGrid();
    updatePhoto();
    updateReveal();
    paintVerdict();
    showHint(doc);
    showProgress(doc.written);
    setStatus("");
    if (state.hint) cellInput(state.hint.row, state.hint.col).focus();
  } catch (err) {
    setStatus(err.message, "error");
  } finally {
    setBusy(false);
  }
}

function applyWritten(written, status) {
  // The server's check of the player's digits: right or wrong, by cell.
  if (state.givens === null && (status === "solved" || status === "ambiguous")) {
    // A grid typed by hand: the digits the server took for entries are the player's, the rest given.
    const entries = new Set((written || []).map((w) => `${w.row - 1},${w.col - 1}`));
    state.givens = new Set([...digitCells(state.tokens)].filter((k) => !entries.has(k)));
  }
  state.marks = new Map();
  for (const w of written || []) {
    if (w.correct === true || w.correct === false) state.marks.set(`${w.row - 1},${w.col - 1}`, w.correct);
  }
}

function clearHint() {
  state.hint = null;
  state.images.hint = null;
  showHint(null);
  repaintGrid();
  updatePhoto();
}

function showHint(doc) {
  const box = $("hint-box");
  box.hidden = !doc;
  $("hint-force").hidden = !(doc && doc.stuck);
  if (!doc) return;
  const said = doc.explanation || "";
  $("hint-text").textContent = doc.step ? `Hint: ${said}.` : said.charAt(0).toUpperCase() + said.slice(1) + ".";
  box.classList.toggle("wrong", !!(doc.wrong && doc.wrong.length) || (!doc.step && !doc.full && !doc.stuck));
}

function progressSummary(doc) {
  const written = (doc.written || []).filter((w) => w.correct === true || w.correct === false);
  if (!written.length) return {text: "", kind: ""};
  const wrong = written.filter((w) => !w.correct);
  const right = written.length - wrong.length;
  if (!wrong.length) return {text: `Your digits: all ${right} right so far.`, kind: "all-right"};
  const where = wrong.map((w) => `row ${w.row}, column ${w.col}`).join("; ");
  return {text: `Your digits: ${right} right, ${wrong.length} wrong (${where}).`, kind: "some-wrong"};
}

function showProgress(written) {
  const {text, kind} = progressSummary({written});
  const el = $("progress");
  el.hidden = !text;
  el.textContent = text;
  el.className = "progress " + kind;
}

function updateReveal() {
  const button = $("reveal");
  button.hidden = !state.solution;
  button.textContent = state.revealed ? "Hide solution" : "Reveal solution";
}

function toggleReveal() {
  state.revealed = !state.revealed;
  if (state.revealed) clearHint();
  repaintGrid();
  updatePhoto();
  updateReveal();
  paintVerdict();
}

function showGrade(grade, status) {
  const el = $("grade");
  if (grade) {
    el.textContent = `${grade.grade} — score ${Number(grade.score).toFixed(2)}`;
    el.className = `grade ${grade.grade}`;
    el.title = "Techniques a person needs: " +
      Object.entries(grade.techniques).map(([name, n]) => `${name} ×${n}`).join(", ") +
      (grade.needed_search ? " (and trial and error)" : "");
    el.dataset.grade = grade.grade;
    el.hidden = false;
  } else if (status === "ambiguous") {
    el.textContent = "not graded: more than one solution";
    el.className = "grade none";
    el.title = "";
    el.dataset.grade = "";
    el.hidden = false;
  } else {
    el.hidden = true;
    el.dataset.grade = "";
  }
}

const VERDICTS = {
  solved: "Solved: the solution is unique.",
  ambiguous: "Solved, but NOT unique: the clues allow more than one solution.",
  unsolvable: "No solution: the clues contradict each other.",
  unreadable: "Some clues could not be read for certain: check them against the photo and type them in.",
  invalid: "The grid breaks the rules: fix the cells marked red.",
  "answer-key": "An answer key: a grid already solved, with no clues. Nothing to solve.",
};

function paintVerdict() {
  const doc = state.result;
  if (!doc) return;
  const verdict = $("verdict");
  const hidden = !state.revealed && state.solution;
  verdict.textContent = (VERDICTS[doc.status] || doc.status) +
    (hidden ? " The solution is hidden: press Reveal solution to see it." : "");
  verdict.className = doc.status;
  verdict.dataset.status = doc.status;
}

function showResult(doc) {
  state.result = doc;
  state.solution = doc.solution || null;
  if (doc.grid && doc.status !== "invalid") state.givens = digitCells(doc.grid);
  applyWritten(doc.written, doc.status);
  repaintGrid();
  $("result").hidden = false;
  paintVerdict();
  updateReveal();
  showGrade(doc.grade, doc.status);
  showProgress(doc.written);
  const list = $("corrections");
  list.innerHTML = "";
  for (const c of doc.corrections || []) {
    const li = document.createElement("li");
    li.textContent = `Row ${c.row}, column ${c.col}, ${c.direction}: read ${c.read ?? "nothing"}, used ${c.used}` +
      (c.forced ? " (the only value that works)" : "");
    list.appendChild(li);
  }
  for (const p of doc.problems || []) {
    const li = document.createElement("li");
    li.textContent = p;
    li.className = "problem";
    list.appendChild(li);
  }
  const json = Object.assign({}, doc);
  delete json.checks; delete json.annotated; delete json.text; delete json.layout;
  download($("dl-json"), "kakuro.json", JSON.stringify(json, null, 1), "application/json");
  if (doc.text) download($("dl-text"), "kakuro.txt", doc.text, "text/plain");
  else $("dl-text").hidden = true;
  const image = $("dl-image");
  const annotated = state.images.solved;
  if (annotated) {
    image.href = annotated;
    image.hidden = false;
  } else if (doc.grid) {
    image.href = gridPicture(doc.grid, doc.solution);
    image.hidden = false;
  } else {
    image.hidden = true;
  }
}

function gridPicture(grid, solution) {
  // A hand-entered puzzle has no photo: draw the grid itself.
  const size = 48, rows = grid.length, cols = grid[0].length;
  const canvas = document.createElement("canvas");
  canvas.width = cols * size + 2;
  canvas.height = rows * size + 2;
  const g = canvas.getContext("2d");
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.textAlign = "center";
  g.textBaseline = "middle";
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = c * size + 1, y = r * size + 1, t = grid[r][c];
      if (isWhite(t)) {
        const digit = /^[1-9]$/.test(t) ? t : solution && solution[r][c];
        if (digit) {
          g.fillStyle = /^[1-9]$/.test(t) ? "#000" : "#1f5fbf";
          g.font = "bold 28px sans-serif";
          g.fillText(String(digit), x + size / 2, y + size / 2 + 1);
        }
      } else {
        g.fillStyle = "#3a3f45";
        g.fillRect(x, y, size, size);
        const m = /^(\d*)\\(\d*)$/.exec(t);
        if (m) {
          g.strokeStyle = "#bbb";
          g.beginPath(); g.moveTo(x, y); g.lineTo(x + size, y + size); g.stroke();
          g.fillStyle = "#fff";
          g.font = "15px sans-serif";
          if (m[1]) g.fillText(m[1], x + size * 0.3, y + size * 0.72);
          if (m[2]) g.fillText(m[2], x + size * 0.7, y + size * 0.3);
        }
      }
      g.strokeStyle = "#444";
      g.strokeRect(x, y, size, size);
    }
  }
  return canvas.toDataURL("image/png");
}

// ------------------------------------------------------------------------------------------
// Wiring

function init() {
  for (const id of ["camera", "file"]) {
    $(id).addEventListener("change", (e) => { uploadFile(e.target.files[0]); e.target.value = ""; });
  }
  const drop = $("drop");
  for (const type of ["dragenter", "dragover"]) {
    document.addEventListener(type, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  for (const type of ["dragleave", "drop"]) {
    document.addEventListener(type, (e) => { e.preventDefault(); drop.classList.remove("over"); });
  }
  document.addEventListener("drop", (e) => {
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) uploadFile(file);
  });
  document.addEventListener("paste", (e) => {
    const item = [...(e.clipboardData ? e.clipboardData.items : [])].find((i) => i.type.startsWith("image/"));
    if (item) uploadFile(item.getAsFile());
  });

  const grid = $("grid");
  grid.addEventListener("input", onCellInput);
  grid.addEventListener("click", onCellClick);
  grid.addEventListener("keydown", onCellKey);
  grid.addEventListener("focusin", (e) => { if (e.target.classList.contains("cell")) e.target.select(); });

  $("toggle-mode").addEventListener("change", (e) => {
    grid.classList.toggle("toggle-mode", e.target.checked);
    for (const input of grid.querySelectorAll(".cell")) input.readOnly = e.target.checked;
  });
  $("size-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const rows = Math.max(2, Math.min(40, parseInt($("rows").value, 10) || 7));
    const cols = Math.max(2, Math.min(40, parseInt($("cols").value, 10) || 7));
    state.readTokens = null;
    state.corrected = new Set();
    state.suspects = new Set();
    $("result").hidden = true;
    $("reveal").hidden = true;
    state.result = null;
    state.givens = null;
    state.revealed = true;
    state.images = {solved: null, progress: null, hint: null};
    loadTokens(emptyTokens(rows, cols));
    updatePhoto();
    $("toggle-mode").checked = true;
    $("toggle-mode").dispatchEvent(new Event("change"));
    setStatus("Tap cells to make them dark or white, then untick the switch and type the clues.");
  });
  $("solve").addEventListener("click", () => solve(true));
  $("check-progress").addEventListener("click", () => solve(false));
  $("hint").addEventListener("click", () => hint(false));
  $("hint-force").addEventListener("click", () => hint(true));
  $("reveal").addEventListener("click", toggleReveal);
  $("clear").addEventListener("click", () => {
    clearSolution();
    scheduleCheck(0);
  });
  $("puzzle-select").addEventListener("change", (e) => choosePuzzle(Number(e.target.value)));
  $("photo-toggle").addEventListener("click", () => showAnnotated($("annotated").hidden));

  loadTokens(emptyTokens(7, 7));
}

document.addEventListener("DOMContentLoaded", init);
