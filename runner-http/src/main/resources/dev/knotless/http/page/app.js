// The status page: hash routes over the JSON API, live log over Server-Sent Events. No framework.
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

function status(s) { return el("span", {class: "status status-" + s}, s); }
function short(sha) { return sha ? sha.substring(0, 12) : ""; }
function when(t) { return t ? new Date(t).toLocaleString() : ""; }
function ms(d) { return d == null ? "" : (d < 1000 ? d + " ms" : (d / 1000).toFixed(1) + " s"); }

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
    ...["pending", "running", "success", "failure", "error", "cancelled"].map(s => el("option", {value: s}, s)));
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
    el("td", {}, el("a", {href: "#/runs/" + r.id, class: "run-link"}, r.id)),
    el("td", {}, r.repo), el("td", {}, r.workflow), el("td", {}, r.event),
    el("td", {}, (r.ref || "").replace(/^refs\/heads\//, "") + " @ " + short(r.commit)),
    el("td", {}, status(r.status)), el("td", {}, when(r.startedAt || r.createdAt))));
  show(gen, el("h1", {}, "Runs"), form,
    runs.length === 0 ? el("p", {}, "No runs.") :
    el("table", {id: "runs"}, el("tr", {}, ...["run", "repository", "workflow", "event", "ref", "status", "when"].map(h => el("th", {}, h))), ...rows));
}

function stepRow(s) {
  return el("tr", {id: "step-" + s.number},
    el("td", {}, s.number), el("td", {}, s.name), el("td", {}, status(s.status)),
    el("td", {class: "exit"}, s.exitCode == null ? "" : s.exitCode), el("td", {}, ms(s.durationMs)), el("td", {}, s.reason || ""));
}

async function runPage(gen, id) {
  const r = await api("/api/runs/" + encodeURIComponent(id));
  const steps = el("table", {id: "steps"},
    el("tr", {}, ...["#", "step", "status", "exit code", "duration", "reason"].map(h => el("th", {}, h))),
    ...r.steps.map(stepRow));
  const runStatus = el("span", {id: "run-status"}, status(r.status));
  const log = el("pre", {id: "log"});
  const gallery = el("div", {class: "gallery", id: "outputs"},
    ...r.outputs.map(o => el("figure", {},
      o.image ? el("img", {src: o.url, alt: o.name}) : "",
      el("figcaption", {}, el("a", {href: o.url}, o.name), " ", o.mediaType, ", ", o.bytes, " bytes"))));
  show(gen, el("h1", {}, r.workflow + " on " + r.repo),
    el("p", {}, "Run ", el("code", {}, r.id), ": ", r.event, " ", r.ref || "", " @ ", el("code", {}, short(r.commit)), " — ", runStatus,
      r.reason ? " — " + r.reason : ""),
    el("h2", {}, "Steps"), steps,
    el("h2", {}, "Log"), log,
    el("h2", {}, "Outputs"), r.outputs.length ? gallery : el("p", {}, "No outputs."));
  if (r.status === "pending" || r.status === "running") {
    follow(r, log, steps, runStatus);
  } else {
    const text = await (await fetch(r.log)).text();
    log.textContent = text;
  }
}

function follow(run, log, steps, runStatus) {
  stream = new EventSource(run.events);
  stream.addEventListener("line", ev => {
    const d = JSON.parse(ev.data);
    const line = el("span", {class: d.stream}, (d.stream === "notice" ? "[knotless] " : "") + d.text + "\n");
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.append(line);
    if (atEnd) log.scrollTop = log.scrollHeight;
  });
  stream.addEventListener("missed", ev => {
    log.append(el("span", {class: "notice"}, "[... " + JSON.parse(ev.data).count + " lines not kept live; the stored log has them ...]\n"));
  });
  stream.addEventListener("step", ev => {
    const d = JSON.parse(ev.data);
    const row = stepRow({number: d.step, name: d.name, status: d.status || "running", exitCode: d.exitCode,
      durationMs: d.durationMs, reason: d.reason});
    const old = document.getElementById("step-" + d.step);
    if (old) old.replaceWith(row); else steps.append(row);
  });
  stream.addEventListener("end", ev => {
    const d = JSON.parse(ev.data);
    runStatus.replaceChildren(status(d.status));
    stream.close();
    stream = null;
    // The outputs and exit codes are final now: show the stored record, keeping the log seen.
    setTimeout(() => { if (location.hash === "#/runs/" + run.id) refreshFinished(run.id); }, 300);
  });
}

async function refreshFinished(id) {
  const r = await api("/api/runs/" + encodeURIComponent(id));
  document.getElementById("steps").replaceChildren(document.getElementById("steps").rows[0], ...r.steps.map(stepRow));
  const outputs = document.getElementById("outputs");
  if (outputs) {
    outputs.replaceChildren(...r.outputs.map(o => el("figure", {},
      o.image ? el("img", {src: o.url, alt: o.name}) : "",
      el("figcaption", {}, el("a", {href: o.url}, o.name), " ", o.mediaType, ", ", o.bytes, " bytes"))));
  } else if (r.outputs.length) {
    route();
  }
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
    } else {
      const page = path === "/queue" ? () => queuePage(gen) : () => runsPage(gen, params);
      await page();
      // Lists have no stream of their own: look again every few seconds while they are in view.
      refresh = setInterval(() => {
        if (!document.hidden && document.activeElement.tagName !== "SELECT") page().catch(() => {});
      }, 5000);
    }
  } catch (e) {
    if (gen === shown) view.replaceChildren(el("p", {class: "error"}, "Could not load: " + e.message));
  }
}

window.addEventListener("hashchange", route);
route();
