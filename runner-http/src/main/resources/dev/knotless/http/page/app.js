// The status page: hash routes over the JSON API, live log over Server-Sent Events. No framework.
// Run output only ever reaches the page as text nodes (see ansi.js); never as HTML.
"use strict";

const view = document.getElementById("view");
let stream = null; // the EventSource of the run shown, closed when leaving it
let refresh = null; // the timer that reloads a list view, stopped when leaving it
let shown = 0; // which route is current: an answer that arrives after the route changed is dropped

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return e;
}

const ICONS = {success: "✓", failure: "✗", error: "!", cancelled: "⊘", skipped: "»", running: "●", pending: "○"};
function status(s) { return el("span", {class: "status status-" + s}, s); }
function badge(s) { return el("span", {class: "badge status-" + s, title: s}, (ICONS[s] || "?") + " " + s); }
function icon(s) { return el("span", {class: "icon status-" + s, title: s}, ICONS[s] || "?"); }
function short(sha) { return sha ? sha.substring(0, 12) : ""; }
function when(t) { return t ? new Date(t).toLocaleString() : ""; }
function ms(d) {
  if (d == null) return "";
  if (d < 1000) return d + " ms";
  if (d < 60000) return (d / 1000).toFixed(1) + " s";
  return Math.floor(d / 60000) + " min " + Math.round((d % 60000) / 1000) + " s";
}
function runMs(r) { return r.startedAt && r.finishedAt ? new Date(r.finishedAt) - new Date(r.startedAt) : null; }
function branch(ref) { return (ref || "").replace(/^refs\/heads\//, ""); }
// The workflow part of a check name: "build (jdk=21, db=postgres)" is a combination of "build".
function workflowOf(name) { const i = name.indexOf(" ("); return i > 0 ? name.substring(0, i) : name; }

async function api(path) {
  const r = await fetch(path);
  if (r.status === 401) { askForToken(); throw new Error("stale"); }
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// The daemon reads only with a token: the page keeps a read token in a same-site cookie, which
// every request of this origin (fetch, EventSource, links to logs and outputs) then carries.
function askForToken() {
  const input = el("input", {type: "password", name: "token", autocomplete: "off", size: "40"});
  const form = el("form", {id: "token-form"}, el("p", {}, "This runner's API needs a token with the read scope."),
      el("label", {}, "Token ", input), " ", el("button", {type: "submit"}, "Use"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    document.cookie = "knotless_token=" + encodeURIComponent(input.value.trim()) + "; path=/; SameSite=Strict";
    location.reload();
  });
  shown++;
  view.replaceChildren(form);
}

// Changes (rerun, cancel) need an admin token in an Authorization header, which no cookie can
// stand for (docs/design/security.md). The page asks for one when a button needs it and keeps it
// for this tab only.
function adminToken() { return sessionStorage.getItem("knotless_admin"); }

function askForAdminToken(where, why) {
  return new Promise(resolve => {
    const input = el("input", {type: "password", name: "admin-token", autocomplete: "off", size: "40"});
    const cancel = el("button", {type: "button"}, "Cancel");
    const form = el("form", {id: "admin-form", class: "admin-form"}, el("p", {}, why),
      el("label", {}, "Admin token ", input), " ", el("button", {type: "submit"}, "Use"), " ", cancel);
    form.addEventListener("submit", e => {
      e.preventDefault();
      sessionStorage.setItem("knotless_admin", input.value.trim());
      form.remove();
      resolve(true);
    });
    cancel.addEventListener("click", () => { form.remove(); resolve(false); });
    document.getElementById("admin-form")?.remove();
    where.after(form);
    input.focus();
  });
}

// POSTs with the admin token, asking for one first (and again when it is refused).
async function change(path, where) {
  for (let tries = 0; tries < 3; tries++) {
    if (!adminToken() && !await askForAdminToken(where, "Rerunning and cancelling need a token with the admin scope.")) return null;
    const r = await fetch(path, {method: "POST", headers: {"Authorization": "Bearer " + adminToken()}});
    if (r.status === 401 || r.status === 403) {
      sessionStorage.removeItem("knotless_admin");
      if (!await askForAdminToken(where, "That token was refused: this needs one with the admin scope.")) return null;
      continue;
    }
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }
  return null;
}

function show(gen, ...nodes) {
  if (gen !== shown) throw new Error("stale");
  view.replaceChildren(...nodes);
}

async function runsPage(gen, params) {
  const q = new URLSearchParams();
  if (params.get("repo")) q.set("repo", params.get("repo"));
  if (params.get("status")) q.set("status", params.get("status"));
  const [runs, repos] = await Promise.all([api("/api/runs?" + q), api("/api/repos")]);
  const repoSelect = el("select", {name: "repo"}, el("option", {value: ""}, "all repositories"),
    ...repos.map(r => el("option", {value: r.name}, r.name)));
  repoSelect.value = params.get("repo") || "";
  const statusSelect = el("select", {name: "status"}, el("option", {value: ""}, "any status"),
    ...["pending", "running", "success", "failure", "error", "cancelled", "skipped"].map(s => el("option", {value: s}, s)));
  statusSelect.value = params.get("status") || "";
  const form = el("form", {class: "filter"}, repoSelect, statusSelect, el("button", {type: "submit"}, "Filter"));
  form.addEventListener("submit", ev => {
    ev.preventDefault();
    const p = new URLSearchParams();
    if (repoSelect.value) p.set("repo", repoSelect.value);
    if (statusSelect.value) p.set("status", statusSelect.value);
    location.hash = "#/runs?" + p;
  });
  const rows = runs.map(r => el("tr", {"data-run": r.id},
    el("td", {}, status(r.status)),
    el("td", {}, el("a", {href: "#/runs/" + r.id, class: "run-link"}, r.id)),
    el("td", {}, r.repo), el("td", {}, r.workflow), el("td", {}, r.event),
    el("td", {}, branch(r.ref) + " @ ", el("a", {href: "#/commits/" + r.commit, class: "commit-link"}, el("code", {}, short(r.commit)))),
    el("td", {}, ms(runMs(r))), el("td", {}, when(r.startedAt || r.createdAt))));
  show(gen, el("h1", {}, "Runs"), form,
    runs.length === 0 ? el("p", {}, "No runs.") :
    el("table", {id: "runs"}, el("tr", {}, ...["status", "run", "repository", "workflow", "event", "ref", "duration", "when"].map(h => el("th", {}, h))), ...rows));
}

// A commit's workflows: the newest run of each check name, grouped by workflow (a matrix's
// combinations under theirs), with the group's status the worst of its newest runs.
const WORST = ["error", "failure", "cancelled", "running", "pending", "success", "skipped"];
function worst(list) { return list.map(r => r.status).sort((a, b) => WORST.indexOf(a) - WORST.indexOf(b))[0]; }

async function commitPage(gen, sha) {
  const runs = await api("/api/runs?limit=1000&commit=" + encodeURIComponent(sha));
  const newest = new Map(); // runs come newest first
  for (const r of runs) {
    const key = r.repo + "\u0000" + r.event + "\u0000" + r.workflow;
    if (!newest.has(key)) newest.set(key, r);
  }
  const groups = new Map();
  for (const r of newest.values()) {
    const key = r.repo + " · " + workflowOf(r.workflow);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const first = runs[0];
  const sections = [...groups.entries()].sort().map(([key, list]) => {
    list.sort((a, b) => a.workflow.localeCompare(b.workflow));
    const total = list.reduce((t, r) => t + (runMs(r) || 0), 0);
    return el("section", {class: "workflow-group", "data-workflow": workflowOf(list[0].workflow)},
      el("h2", {}, icon(worst(list)), " ", key, el("span", {class: "muted"}, " " + list.length + " run" + (list.length === 1 ? "" : "s") + ", " + ms(total))),
      el("table", {class: "jobs"}, ...list.map(r => el("tr", {"data-run": r.id},
        el("td", {class: "st"}, badge(r.status)),
        el("td", {}, el("a", {href: "#/runs/" + r.id}, r.workflow)),
        el("td", {}, r.event), el("td", {class: "num"}, ms(runMs(r))),
        el("td", {class: "muted"}, r.reason || ""),
        el("td", {}, el("a", {href: "#/workflows?repo=" + encodeURIComponent(r.repo) + "&workflow=" + encodeURIComponent(r.workflow), class: "muted"}, "history"))))));
  });
  show(gen, el("h1", {}, "Commit ", el("code", {}, short(sha))),
    first ? el("p", {class: "muted"}, first.repo + " · " + branch(first.ref) + " · " + runs.length + " run(s) in all, newest of each shown") : "",
    runs.length === 0 ? el("p", {}, "No runs at this commit.") : el("div", {id: "commit-workflows"}, ...sections));
}

// The duration of a workflow's last runs, as bars (oldest left), coloured by status.
async function durationChart(repo, workflow, current) {
  const runs = (await api("/api/runs?limit=30&repo=" + encodeURIComponent(repo) + "&workflow=" + encodeURIComponent(workflow)))
    .filter(r => runMs(r) != null).reverse();
  const NS = "http://www.w3.org/2000/svg";
  const svg = (tag, attrs) => { const e = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); return e; };
  const W = 640, H = 160, pad = 48, bw = Math.max(6, Math.min(36, (W - pad) / Math.max(runs.length, 1) - 6));
  const max = Math.max(1000, ...runs.map(runMs));
  const chart = svg("svg", {id: "duration-chart", viewBox: `0 0 ${W} ${H + 20}`, width: W, height: H + 20, role: "img"});
  const label = svg("text", {x: 0, y: 12, class: "axis"}); label.textContent = ms(max); chart.append(label);
  chart.append(svg("line", {x1: pad, y1: H, x2: W, y2: H, class: "axis-line"}));
  runs.forEach((r, i) => {
    const h = Math.max(2, Math.round(runMs(r) / max * (H - 20)));
    const link = svg("a", {href: "#/runs/" + r.id});
    const bar = svg("rect", {x: pad + 4 + i * (bw + 4), y: H - h, width: bw, height: h, rx: 2,
      class: "bar status-" + r.status + (r.id === current ? " current" : ""), "data-run": r.id});
    const title = svg("title", {}); title.textContent = r.id + ": " + r.status + " in " + ms(runMs(r));
    bar.append(title); link.append(bar); chart.append(link);
    if (runs.length <= 16) {
      const took = svg("text", {x: pad + 4 + i * (bw + 4) + bw / 2, y: H - h - 4, class: "took", "text-anchor": "middle"});
      took.textContent = ms(runMs(r));
      chart.append(took);
    }
  });
  return el("figure", {class: "chart"}, chart,
    el("figcaption", {}, runs.length + " ended run(s) of " + workflow + " on " + repo + ", oldest left"));
}

async function workflowPage(gen, params) {
  const repo = params.get("repo") || "", workflow = params.get("workflow") || "";
  const chart = await durationChart(repo, workflow, null);
  show(gen, el("h1", {}, workflow + " on " + repo), el("h2", {}, "Duration of the last runs"), chart);
}

function stepSummary(s) {
  return [icon(s.status), el("span", {class: "name"}, s.name),
    el("span", {class: "meta"}, s.exitCode == null ? "" : el("span", {class: "exit"}, s.exitCode),
      s.reason ? el("span", {class: "reason"}, s.reason) : "", el("span", {class: "took"}, ms(s.durationMs)))];
}

// The steps as collapsible sections, the failed one (or the running one) open.
function stepSections(r) {
  const container = el("div", {id: "log", class: "log"});
  const sections = new Map();
  const add = (number, s) => {
    const body = el("div", {class: "section-body"});
    const details = el("details", {class: "step", id: "step-" + number, "data-status": s.status},
      el("summary", {}, ...stepSummary(s)), body);
    if (["failure", "error", "running"].includes(s.status)) details.open = true;
    container.append(details);
    const section = new LogSection(body);
    section.details = details;
    sections.set(number, section);
    return section;
  };
  add(0, {name: "Set up", status: r.status === "pending" ? "pending" : (r.steps.length || r.status === "success" ? "success" : r.status)});
  r.steps.forEach(s => add(s.number, s));
  return {container, sections, add};
}

// Lines of the stored log to their sections: a step begins at the runner's notice
// "[knotless] step N 'NAME'" when N and NAME are the next step's (docs/design/status-page.md).
function fillFromStoredLog(text, r, log) {
  let current = log.sections.get(0), next = 0;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("[knotless] ")) {
      const rest = line.substring(11);
      // skipped steps say nothing: the announcement may be of any later step
      const j = r.steps.findIndex((s, i) => i >= next && rest === "step " + s.number + " '" + s.name + "'");
      if (j >= 0) {
        current = log.sections.get(r.steps[j].number);
        next = j + 1;
      }
      current.line(rest, "notice");
    } else {
      current.line(line, "stdout");
    }
  }
}

async function runPage(gen, id) {
  const r = await api("/api/runs/" + encodeURIComponent(id));
  const runStatus = el("span", {id: "run-status"}, status(r.status));
  const log = stepSections(r);
  const rerun = el("button", {id: "rerun", type: "button", class: "button"}, "↻ Rerun");
  const cancel = el("button", {id: "cancel", type: "button", class: "button danger"}, "⊘ Cancel");
  const ended = !["pending", "running"].includes(r.status);
  rerun.disabled = !ended;
  cancel.hidden = ended;
  const actions = el("div", {class: "actions"}, rerun, " ", cancel);
  const message = el("p", {id: "action-message", class: "muted"});
  rerun.addEventListener("click", async () => {
    try {
      const body = await change("/api/runs/" + encodeURIComponent(r.id) + "/rerun", actions);
      if (body && body.queued.length) location.hash = "#/runs/" + body.queued[0].id;
    } catch (e) { message.textContent = "Rerun refused: " + e.message; }
  });
  cancel.addEventListener("click", async () => {
    try {
      const body = await change("/api/runs/" + encodeURIComponent(r.id) + "/cancel", actions);
      if (body) message.textContent = body.outcome === "cancelled" ? "Cancelled." : "Cancelling…";
    } catch (e) { message.textContent = "Cancel refused: " + e.message; }
  });
  const tests = r.tests ? testReport(r.tests) : "";
  const gallery = outputs(r);
  // An ended run's log is filled in before the page is shown, so it never shows empty steps.
  if (ended) fillFromStoredLog(await (await fetch(r.log)).text(), r, log);
  show(gen,
    el("div", {class: "run-head"},
      el("h1", {}, badge(r.status), " ", r.workflow, el("span", {class: "muted"}, " on " + r.repo)), actions),
    el("p", {class: "muted"}, "Run ", el("code", {}, r.id), " · ", r.event, " · ", branch(r.ref), " @ ",
      el("a", {href: "#/commits/" + r.commit, id: "commit-link"}, el("code", {}, short(r.commit))), " · ", runStatus,
      runMs(r) != null ? " in " + ms(runMs(r)) : "", r.reason ? " · " + r.reason : "", " · ",
      el("a", {href: r.log}, "raw log")),
    message,
    el("h2", {}, "Steps"), log.container,
    tests ? el("h2", {}, "Tests") : "", tests,
    el("h2", {}, "Outputs"), gallery,
    el("h2", {}, "Duration of the last runs of " + r.workflow), el("div", {id: "chart-slot"}));
  durationChart(r.repo, r.workflow, r.id).then(c => document.getElementById("chart-slot")?.replaceChildren(c)).catch(() => {});
  if (!ended) follow(r, log, runStatus);
}

function testReport(t) {
  const failed = t.failed.map(f => el("li", {class: "failed-test"},
    el("span", {class: "status status-failure"}, f.error ? "error " : "failed "),
    el("code", {}, f.className ? f.className + "." + f.name : f.name),
    f.message ? el("pre", {class: "message"}, f.message) : ""));
  const passed = t.tests - t.failures - t.errors - t.skipped;
  return el("section", {id: "tests", class: "tests"},
    el("p", {class: "counts"},
      el("strong", {}, t.tests + " tests"), ": ",
      el("span", {class: "status-failure"}, (t.failures + t.errors) + " failed"), ", ",
      el("span", {class: "status-success"}, passed + " passed"), ", ",
      el("span", {class: "status-skipped"}, t.skipped + " skipped"), " in " + ms(t.timeMs) + ", from " + t.files + " file(s)"),
    failed.length ? el("ul", {class: "failed"}, ...failed) : el("p", {}, "No test failed."),
    ...(t.notes || []).map(n => el("p", {class: "muted"}, n)));
}

function outputs(r) {
  if (!r.outputs.length) return el("p", {id: "outputs", class: "muted"}, "No outputs.");
  const images = r.outputs.filter(o => o.image), files = r.outputs.filter(o => !o.image);
  return el("div", {id: "outputs"},
    el("div", {class: "gallery"}, ...images.map(o => el("figure", {},
      el("a", {href: o.url}, el("img", {src: o.url, alt: o.name, loading: "lazy"})),
      el("figcaption", {}, o.name, el("span", {class: "muted"}, " " + o.bytes + " bytes"))))),
    files.length ? el("ul", {class: "files"}, ...files.map(o => el("li", {},
      el("a", {href: o.url}, o.name), el("span", {class: "muted"}, " " + o.mediaType + ", " + o.bytes + " bytes")))) : "");
}

// The live log: each line to its step's section (notices to the step going), the running step open
// and followed (the page scrolls along while it is at the bottom), a finished one closed if it passed.
function follow(run, log, runStatus) {
  let going = 0;
  const atBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 8;
  const along = (fn) => { const follow = atBottom(); fn(); if (follow) window.scrollTo(0, document.body.scrollHeight); };
  stream = new EventSource(run.events);
  stream.addEventListener("line", ev => {
    const d = JSON.parse(ev.data);
    // The runner announces a step before it says it started: the announcement opens the step's section.
    const announced = d.step === 0 ? /^step (\d+) '/.exec(d.text) : null;
    const target = d.step > 0 ? d.step : announced && Number(announced[1]) > going && log.sections.has(Number(announced[1]))
      ? Number(announced[1]) : going;
    const section = log.sections.get(target) || log.sections.get(0);
    along(() => section.line(d.text, d.stream));
  });
  stream.addEventListener("missed", ev => {
    const section = log.sections.get(going) || log.sections.get(0);
    section.line("[... " + JSON.parse(ev.data).count + " lines not kept live; the stored log has them ...]", "notice");
  });
  stream.addEventListener("step", ev => {
    const d = JSON.parse(ev.data);
    const s = {number: d.step, name: d.name, status: d.status || "running", exitCode: d.exitCode, durationMs: d.durationMs, reason: d.reason};
    const section = log.sections.get(d.step) || log.add(d.step, s);
    section.details.querySelector("summary").replaceChildren(...stepSummary(s));
    section.details.dataset.status = s.status;
    if (s.status === "running") {
      going = d.step;
      if (runStatus.textContent === "pending") runStatus.replaceChildren(status("running"));
      log.sections.forEach((other, n) => { if (n !== d.step && other.details.dataset.status === "success") other.details.open = false; });
      section.details.open = true;
    } else if (s.status === "success") {
      section.details.open = false;
    }
  });
  stream.addEventListener("end", ev => {
    const d = JSON.parse(ev.data);
    runStatus.replaceChildren(status(d.status));
    stream.close();
    stream = null;
    // Exit codes, outputs and the test report are final now: show the stored run.
    setTimeout(() => { if (location.hash === "#/runs/" + run.id) route(); }, 300);
  });
}

async function queuePage(gen) {
  const q = await api("/api/queue");
  const runRows = list => list.map(r => el("tr", {},
    el("td", {}, el("a", {href: "#/runs/" + r.id}, r.id)), el("td", {}, r.repo), el("td", {}, r.workflow),
    el("td", {}, r.event), el("td", {}, short(r.commit)), el("td", {}, status(r.status)), el("td", {}, when(r.createdAt))));
  const head = () => el("tr", {}, ...["run", "repository", "workflow", "event", "commit", "status", "queued"].map(h => el("th", {}, h)));
  show(gen, el("h1", {}, "Queue"),
    el("h2", {}, "Running (" + q.running.length + ")"), el("table", {id: "running"}, head(), ...runRows(q.running)),
    el("h2", {}, "Waiting (" + q.waiting.length + ")"), el("table", {id: "waiting"}, head(), ...runRows(q.waiting)),
    el("h2", {}, "Merge queue (" + q.mergeQueue.length + ")"),
    el("table", {id: "merge-queue"}, el("tr", {}, ...["repository", "#", "into", "state", "updated"].map(h => el("th", {}, h))),
      ...q.mergeQueue.map(m => el("tr", {}, el("td", {}, m.repo), el("td", {}, m.number), el("td", {}, m.target),
        el("td", {}, m.state), el("td", {}, when(m.updatedAt))))));
}

// The fleet as GET /api/nodes gives it (docs/reference/api.md): what the node executor last reported,
// "?" where it does not know (no daemon reported lately, or an agent that sends no status).
function cores(milli) { return String(Number((milli / 1000).toFixed(3))); }
function gib(bytes) { return (bytes / 2 ** 30).toFixed(1); }
function skew(ms) { const s = Math.round(ms / 1000); return (s >= 0 ? "+" : "") + (s === 0 ? 0 : s) + "s"; }
function yesNo(b) { return b == null ? "?" : b ? "yes" : "no"; }
function ofCapacity(n, used, total, unit) {
  if (n.capacity == null) return "?";
  return (n.allocated == null ? "?" : used(n.allocated)) + " / " + total(n.capacity) + unit;
}

async function nodesPage(gen) {
  const f = await api("/api/nodes");
  const cell = (name, ...content) => el("td", {class: name}, ...content);
  const rows = f.nodes.map(n => el("tr", {"data-node": n.node},
    cell("node", el("code", {title: n.keyId ? "key " + n.keyId : null}, n.node)),
    cell("version", n.health == null ? "?" : n.health.agent),
    cell("connected", n.connected == null ? "?" : el("span", {class: n.connected ? "status-success" : "status-pending"}, yesNo(n.connected))),
    cell("drained", n.drained ? el("span", {class: "badge status-cancelled"}, "drained") : "no"),
    cell("last-seen", n.lastSeen ? el("time", {datetime: n.lastSeen}, when(n.lastSeen)) : "never"),
    cell("allocations num", n.allocations == null ? "?" : n.allocations),
    cell("cpu num", ofCapacity(n, a => cores(a.milliCpu), c => cores(c.milliCpu), "")),
    cell("memory num", ofCapacity(n, a => gib(a.memoryBytes), c => gib(c.memoryBytes), " GiB")),
    cell("free-disk num", n.capacity == null ? "?" : gib(n.capacity.freeDiskBytes) + " GiB"),
    cell("skew num", n.health == null ? "?" : skew(n.health.clockSkewMillis)),
    cell("runc", n.health == null ? "?" : n.health.runc)));
  show(gen, el("h1", {}, "Nodes"),
    f.live ? "" : el("p", {id: "nodes-stale", class: "muted"}, (f.reported ? "The node executor has not reported since " + when(f.reported)
      : "The node executor has not reported yet") + ": connected and allocations are unknown."),
    f.nodes.length === 0 ? el("p", {}, "No nodes: enrol one with knotless-run node token and node enroll.") :
    el("table", {id: "nodes"}, el("tr", {}, ...["node", "version", "connected", "drained", "last seen", "allocations", "CPUs used / offered",
      "memory used / offered", "free disk", "clock skew", "runc"].map(h => el("th", {}, h))), ...rows),
    el("p", {class: "muted"}, "Used: what this runner's runs on the node asked for. Offered: what the node last reported."
      + " Drain and undrain with knotless-run node drain or the API."));
}

async function route() {
  if (stream) { stream.close(); stream = null; }
  if (refresh) { clearInterval(refresh); refresh = null; }
  const hash = location.hash || "#/runs";
  const [path, query] = hash.substring(1).split("?");
  const params = new URLSearchParams(query || "");
  const gen = ++shown;
  try {
    if (path.startsWith("/runs/")) {
      await runPage(gen, decodeURIComponent(path.substring(6)));
    } else if (path.startsWith("/commits/")) {
      await commitPage(gen, decodeURIComponent(path.substring(9)));
    } else if (path === "/workflows") {
      await workflowPage(gen, params);
    } else {
      const page = path === "/queue" ? () => queuePage(gen) : path === "/nodes" ? () => nodesPage(gen) : () => runsPage(gen, params);
      await page();
      // Lists have no stream of their own: look again every few seconds while they are in view.
      refresh = setInterval(() => {
        if (!document.hidden && document.activeElement.tagName !== "SELECT") page().catch(() => {});
      }, 5000);
    }
  } catch (e) {
    if (gen === shown && e.message !== "stale") view.replaceChildren(el("p", {class: "error"}, "Could not load: " + e.message));
  }
}

// The Nodes view is offered only where the daemon runs a node executor (elsewhere /api/nodes is 404).
fetch("/api/nodes").then(r => { if (r.ok) document.getElementById("nav-nodes").hidden = false; }).catch(() => {});

window.addEventListener("hashchange", route);
route();
