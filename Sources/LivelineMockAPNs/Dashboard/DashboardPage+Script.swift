extension DashboardPage {
    /// Plain JavaScript, no libraries: an EventSource on `/events`, and drawing from each frame.
    static let script = #"""
        "use strict";
        const REFERENCE_DATE = 978307200; // 2001-01-01 in UNIX seconds: how ActivityKit encodes a Date
        const BANNER_MS = 8000;
        const $ = (id) => document.getElementById(id);
        let frame = null, receivedAt = 0, source = null, query = "";
        const cardHTML = new Map();

        function esc(v) {
          return String(v).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
        }
        function serverNow() { return frame ? frame.now + (Date.now() - receivedAt) : Date.now(); }

        function connect() {
          if (source) source.close();
          source = new EventSource("events" + (query ? "?q=" + encodeURIComponent(query) : ""));
          source.addEventListener("frame", (event) => {
            frame = JSON.parse(event.data);
            receivedAt = Date.now();
            $("conn").className = "dot live";
            draw();
          });
          source.onerror = () => { $("conn").className = "dot lost"; };
        }

        // ---- values and templates -------------------------------------------------------------
        function lookup(activity, path) {
          const parts = path.split(".");
          let value = parts[0] === "attributes" ? activity.attributes || activity.scenarioAttributes : activity["content-state"];
          for (const key of parts.slice(1)) value = value == null ? undefined : value[key];
          return value;
        }
        function dateMs(value) { return typeof value === "number" ? (value + REFERENCE_DATE) * 1000 : NaN; }
        function countdown(ms) {
          const left = Math.max(0, Math.round(ms / 1000));
          if (left >= 3600) return Math.floor(left / 3600) + " h " + Math.floor((left % 3600) / 60) + " min";
          if (left >= 600) return Math.round(left / 60) + " min";
          return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
        }
        function show(value) {
          if (value == null) return "";
          if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
          if (typeof value === "object") return JSON.stringify(value);
          return String(value);
        }
        // A presentation text as HTML; countdowns become live spans the timer updates.
        function fill(parts, activity) {
          if (!parts) return "";
          return parts.map((part) => {
            if (part.text !== undefined) return esc(part.text);
            const value = lookup(activity, part.field);
            if (part.format === "countdown") {
              const at = dateMs(value);
              return isNaN(at) ? esc(show(value)) : `<span data-until="${at}">${esc(countdown(at - serverNow()))}</span>`;
            }
            if (part.format === "time") {
              const at = dateMs(value);
              return isNaN(at) ? esc(show(value)) : esc(new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
            }
            if (part.format === "upper") return esc(show(value).toUpperCase());
            return esc(show(value));
          }).join("");
        }
        function words(name) {
          return name.replace(/Attributes$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[-_]/g, " ").trim();
        }
        // Without a presentation: a layout from the fields, in the order the sender wrote them.
        function derived(activity) {
          const state = activity["content-state"] || {};
          const fields = Object.keys(state).filter((k) => state[k] !== null && typeof state[k] !== "object");
          const field = (k) => [{ field: "state." + k }];
          const labelled = (k) => [{ text: words(k) + " " }, { field: "state." + k }];
          const attributes = activity.attributes || activity.scenarioAttributes || {};
          const named = Object.keys(attributes).filter((k) => typeof attributes[k] === "string").slice(0, 2);
          const title = named.length
            ? named.flatMap((k, i) => (i ? [{ text: " · " }] : []).concat([{ field: "attributes." + k }]))
            : [{ text: words(activity["attributes-type"] || "Live Activity") }];
          return {
            "lock-screen-title": title,
            "lock-screen-lines": fields.map(labelled),
            "compact-leading": fields[0] ? field(fields[0]) : null,
            "compact-trailing": fields[1] ? field(fields[1]) : null,
            minimal: fields[0] ? field(fields[0]) : null,
            "expanded-leading": fields[0] ? field(fields[0]) : null,
            "expanded-trailing": fields[1] ? field(fields[1]) : null,
            "expanded-center": title,
            "expanded-bottom": fields.slice(2, 4).length ? fields.slice(2, 4).flatMap((k, i) => (i ? [{ text: " · " }] : []).concat(labelled(k))) : null,
          };
        }
        const TINTS = { red: "#ff453a", orange: "#ff9f0a", yellow: "#ffd60a", green: "#30d158", mint: "#63e6e2", teal: "#40c8e0",
          cyan: "#64d2ff", blue: "#0a84ff", indigo: "#5e5ce6", purple: "#bf5af2", pink: "#ff375f", brown: "#ac8e68", gray: "#98989d", white: "#ffffff" };
        function tint(p) { const t = p && p.tint; return t ? (TINTS[t] || t) : "#0a84ff"; }

        // SF-Symbol-like names drawn as simple shapes; anything else as its first letter.
        function glyph(name, size) {
          const s = size || 22, w = 'stroke="#fff" stroke-width="1.8" fill="none" stroke-linecap="round" stroke-linejoin="round"';
          const svg = (body) => `<svg width="${s}" height="${s}" viewBox="0 0 24 24" aria-label="${esc(name || "")}">${body}</svg>`;
          const n = (name || "").toLowerCase();
          if (n.includes("soccer") || n.includes("ball")) return svg(`<circle cx="12" cy="12" r="9" ${w}/><path d="M12 7.5l3.6 2.6-1.4 4.2H9.8L8.4 10.1z" fill="#fff"/><path d="M12 3v4.5M20.5 9.5l-4.9.6M17.6 19l-3.4-4.7M6.4 19l3.4-4.7M3.5 9.5l4.9.6" ${w}/>`);
          if (n.includes("truck") || n.includes("car") || n.includes("bicycle") || n.includes("scooter")) return svg(`<path d="M2.5 6.5h11v9h-11zM13.5 9.5h4l3 3.2v2.8h-7z" ${w}/><circle cx="6.5" cy="17" r="1.8" fill="#fff"/><circle cx="16.8" cy="17" r="1.8" fill="#fff"/>`);
          if (n.includes("bag") || n.includes("cart") || n.includes("box") || n.includes("takeout")) return svg(`<path d="M5 8h14l-1.2 12H6.2z" ${w}/><path d="M9 8V6.5a3 3 0 0 1 6 0V8" ${w}/>`);
          if (n.includes("clock") || n.includes("timer") || n.includes("hourglass")) return svg(`<circle cx="12" cy="12" r="9" ${w}/><path d="M12 7v5l3.5 2" ${w}/>`);
          if (n.includes("bolt") || n.includes("flame")) return svg(`<path d="M13 2.5L5 13.5h6l-1 8 8-11h-6z" fill="#fff"/>`);
          if (n.includes("star") || n.includes("trophy")) return svg(`<path d="M12 3l2.7 5.6 6.1.8-4.5 4.2 1.1 6-5.4-3-5.4 3 1.1-6-4.5-4.2 6.1-.8z" fill="#fff"/>`);
          if (n.includes("airplane") || n.includes("flight")) return svg(`<path d="M21 13.5l-8-4V4.5a1.5 1.5 0 0 0-3 0v5l-7 4v2l7-2v4l-2 1.5v1.5l3.5-1 3.5 1v-1.5l-2-1.5v-4l8 2z" fill="#fff"/>`);
          return `<b style="font-size:${Math.round(s * 0.7)}px">${esc((name || "•").charAt(0).toUpperCase())}</b>`;
        }

        // ---- one activity --------------------------------------------------------------------
        function lifecycleOf(a, now) {
          if (a.lifecycle === "active" && a["stale-date"] && now >= a["stale-date"]) return "stale";
          return a.lifecycle;
        }
        function latestAlert(a) {
          if (!frame) return null;
          for (let i = frame.timeline.length - 1; i >= 0; i--) {
            const p = frame.timeline[i];
            if (p["activity-id"] === a.id && p["alert-title"] && p.outcome === "rendered") return p;
          }
          return null;
        }
        function card(item, phoneOnly) {
          const a = Object.assign({ scenarioAttributes: item["scenario-attributes"] }, item.activity);
          const p = item.presentation || derived(a), d = derived(a);
          const pick = (key) => p[key] || d[key];
          const now = serverNow();
          const lifecycle = lifecycleOf(a, now);
          const color = tint(item.presentation);
          const lines = (p["lock-screen-lines"] && p["lock-screen-lines"].length ? p["lock-screen-lines"] : d["lock-screen-lines"]);
          const alert = latestAlert(a);
          let state = lifecycle;
          if (lifecycle === "ended") {
            const dismissAt = a["dismissal-date"] || ((a["ended-at"] || now) + 4 * 3600 * 1000);
            state = `ended · dismissed in <span data-until="${dismissAt}">${countdown(dismissAt - now)}</span>`;
          } else if (lifecycle === "stale") {
            state = "stale";
          } else if (lifecycle === "active" && a["stale-date"]) {
            state = `live`;
          }
          const banner = alert && now - alert.time < BANNER_MS
            ? `<div class="banner lit" data-alert-until="${alert.time + BANNER_MS}"><div class="app">${glyph(item.presentation && item.presentation.icon, 22)}</div>
                 <div><div class="title">${esc(alert["alert-title"])}</div>${alert["alert-body"] ? `<div class="body">${esc(alert["alert-body"])}</div>` : ""}</div>
                 <div class="when">now</div></div>` : "";
          const staleAt = a["stale-date"] ? `<span>stale at ${esc(new Date(a["stale-date"]).toLocaleTimeString())}</span>` : "";
          const budget = `<span>budget ${a["budget-remaining"]}/${frame["budget-per-hour"]}</span>`;
          const relevance = a["relevance-score"] != null ? `<span>relevance ${show(a["relevance-score"])}</span>` : "";
          const problems = (a["last-reasons"] || []).length ? `<div class="problem">last push not shown: ${esc(a["last-reasons"].join("; "))}</div>` : "";
          const token = a["update-token"] || a["push-to-start-token"] || a.id;
          const phone = `<div class="phone">
              <div class="caption">${phoneOnly ? "One follower's Lock Screen" : "Lock Screen"}</div>
              ${banner}
              <div class="lock">
                <div class="top"><div class="glyph">${glyph(item.presentation && item.presentation.icon, 24)}</div>
                  <div class="title">${fill(pick("lock-screen-title"), a)}</div>
                  <div class="state">${state}</div></div>
                <div class="lines">${lines.map((l, i) => `<div class="line${i === 0 && item.presentation ? " hero" : ""}">${fill(l, a)}</div>`).join("")}</div>
                <div class="foot">${relevance}${budget}${staleAt}</div>
                ${problems}
              </div>
            </div>`;
          if (phoneOnly) return `<div class="${lifecycle}" style="--tint:${esc(color)}">${phone}</div>`;
          return `<div class="activity ${lifecycle}" data-id="${esc(a.id)}" data-stale-at="${a["stale-date"] || ""}" data-lifecycle="${esc(a.lifecycle)}" style="--tint:${esc(color)}">
            <div class="label"><span class="name">${esc(item.name || words(a["attributes-type"] || "activity"))}</span><span class="token">${esc(token.slice(0, 16))}…</span></div>
            ${phone}
            <div class="islands">
              <div class="island-row">
                <div><div class="caption">Compact</div><div class="island compact"><span class="lead">${glyph(item.presentation && item.presentation.icon, 18)}<span class="fit">${fill(pick("compact-leading"), a)}</span></span><span class="trail">${fill(pick("compact-trailing"), a)}</span></div></div>
                <div><div class="caption">Minimal</div><div class="island minimal"><span class="fit">${fill(pick("minimal"), a) || glyph(item.presentation && item.presentation.icon, 18)}</span></div></div>
              </div>
              <div style="width:100%"><div class="caption">Expanded</div><div class="island expanded">
                <div class="regions"><div class="lead">${fill(pick("expanded-leading"), a)}</div><div class="center">${fill(pick("expanded-center"), a)}</div><div class="trail">${fill(pick("expanded-trailing"), a)}</div></div>
                <div class="bottom">${fill(pick("expanded-bottom"), a)}</div></div></div>
            </div></div>`;
        }

        // ---- audiences: a key fanned out to many devices -------------------------------------
        function count(n) { return Number(n || 0).toLocaleString("en-US"); }
        function seconds(s) { return s == null ? "—" : s < 10 ? (Math.round(s * 100) / 100) + " s" : Math.round(s) + " s"; }
        function audienceHTML(view) {
          const a = view.audience, f = a["fan-out"];
          const tile = (name, label, value, cls) =>
            `<div class="tile ${cls || ""}" data-count="${name}"><b>${count(value)}</b><span>${esc(label)}</span></div>`;
          const tiles = tile("updating", "with update token", a.updating, "good") + tile("awaiting-start", "push-to-start only", a["awaiting-start"])
            + tile("on-channel", "on the channel", a["on-channel"]) + tile("retrying", "retrying", a.retrying, a.retrying ? "warn" : "")
            + tile("catching-up", "catching up", a["catching-up"]) + tile("in-doubt", "start in doubt", a["in-doubt"], a["in-doubt"] ? "doubt" : "")
            + tile("removed", "removed (token gone)", a.removed, a.removed ? "bad" : "");
          const doubt = a["in-doubt"]
            ? `<div class="doubt-note" data-note="in-doubt"><b>${count(a["in-doubt"])}</b> ${a["in-doubt"] === 1 ? "follower's start is" : "followers' starts are"} in doubt: `
              + `the bridge stopped between sending the start and recording APNs' answer. It is not sent again, since a second start `
              + `would show two Live Activities on one phone; the app reporting an update token (it has the activity) or a new `
              + `push-to-start token (it has not) settles it.</div>`
            : "";
          let progress = `<div class="fanout idle">No fan-out yet: the first push of this key reaches every follower.</div>`;
          if (f) {
            const share = f.audience > 0 ? Math.min(100, 100 * f.answered / f.audience) : 100;
            const failures = Object.entries(f.failures || {}).sort((x, y) => y[1] - x[1])
              .map(([reason, n]) => `<span class="reason">${esc(reason)} <b>${count(n)}</b></span>`).join("");
            progress = `<div class="fanout ${esc(f.state)}" data-state="${esc(f.state)}">
              <div class="what"><span class="event">${esc(f.event)}</span><span class="fstate">${esc(f.state)}</span>
                ${f["content-state"] ? `<code>${esc(f["content-state"])}</code>` : ""}</div>
              <div class="bar"><i style="width:${share}%"></i></div>
              <div class="numbers"><span data-count="answered"><b>${count(f.answered)}</b> of <b>${count(f.audience)}</b> followers answered</span>
                <span data-count="rate"><b>${f["pushes-per-second"] == null ? "—" : count(Math.round(f["pushes-per-second"]))}</b> pushes/s</span>
                <span data-count="lag">lag <b>${seconds(f["lag-seconds"])}</b></span>
                <span data-count="failed" class="${f.failed ? "bad" : ""}"><b>${count(f.failed)}</b> failed</span></div>
              ${failures ? `<div class="failures">${failures}</div>` : ""}</div>`;
          }
          const sample = view.sample ? card(view.sample, true) : `<div class="phone"><div class="caption">One follower's Lock Screen</div><p class="hint">no device has it yet</p></div>`;
          return `<article class="audience" data-key="${esc(a.key)}">
            <div class="head"><span class="key">${esc(a.key)}</span><span class="total" data-count="total"><b>${count(a.total)}</b> followers</span></div>
            <div class="body"><div class="stats"><div class="tiles">${tiles}</div>${doubt}${progress}</div><div class="sample${a.android ? " both" : ""}">${sample}${androidHTML(a.android)}</div></div></article>`;
        }
        // One Android follower's phone: the status-bar chip and the promoted notification (a Live
        // Update), as the mock FCM's phone model shows them.
        function androidHTML(p) {
          if (!p) return "";
          const caption = `<div class="caption">One Android follower · ${esc(p.device)}</div>`;
          if (!p.shown) return `<div class="phone android" data-platform="android">${caption}<p class="hint">no Live Update yet</p></div>`;
          const max = p["progress-max"], pct = p.progress != null && max ? Math.max(0, Math.min(100, 100 * p.progress / max)) : null;
          const chip = p.chip ? `<span class="lu-chip" data-android="chip">${esc(p.chip)}</span>` : "";
          return `<div class="phone android" data-platform="android">${caption}
            <div class="statusbar"><span class="clock">${time(Date.now()).slice(0, 5)}</span>${chip}<span class="icons">▾ ▮</span></div>
            <div class="lu ${p.promoted ? "promoted" : "plain"}${p.ended ? " ended" : ""}" data-android="notification">
              <div class="lu-top"><span class="lu-icon"></span><span class="lu-app">${esc(p.channel || "")}</span>${p.promoted ? `<span class="lu-tag">Live Update</span>` : ""}</div>
              <div class="lu-title">${esc(p.title || "")}</div>
              ${p.text ? `<div class="lu-text">${esc(p.text)}</div>` : ""}
              ${pct != null ? `<div class="lu-bar"><i style="width:${pct}%"></i></div>` : ""}
              ${p.promoted ? "" : `<div class="lu-why">a plain notification: ${esc(p["not-promoted-because"] || "not promoted")}</div>`}
            </div></div>`;
        }
        function drawAudiences(f) {
          const box = $("audiences"), list = f.audiences || [];
          box.hidden = list.length === 0;
          box.innerHTML = list.length
            ? `<h2 class="section">Audiences <span class="hint">followers by state and the newest fan-out of each key; devices below are a sample</span></h2>` + list.map(audienceHTML).join("")
            : "";
        }

        // ---- the side panel ------------------------------------------------------------------
        function time(ms) { return new Date(ms).toLocaleTimeString([], { hour12: false }); }
        function pushRow(p, notable) {
          const outcome = p.outcome || (p.status === 200 ? "" : "refused");
          const high = p.priority === 10;
          const who = p.name || p.target.slice(0, 12) + "…";
          const why = [p["plan-reason"], p.event].filter(Boolean).join(" · ");
          const reasons = [];
          if (p.status !== 200) reasons.push(`APNs ${p.status} ${p["apns-reason"] || ""}`);
          const second = p["duplicate-of"];
          if (p.outcome && p.outcome !== "rendered") reasons.push(...p["outcome-reasons"]);
          if (second) reasons.unshift(`a second start on one push-to-start token: this phone now shows two Live Activities for one story (${second} is still shown)`);
          const flagged = p.status !== 200 || (p.outcome && p.outcome !== "rendered") || second;
          const label = second ? "second start" : outcome;
          return `<li class="push ${flagged ? "notable" : ""} ${second ? "duplicate" : ""} ${esc(outcome)}" data-outcome="${esc(second ? "duplicate-start" : outcome)}">
            <span class="t">${time(p.time)}</span><span class="p ${high ? "high" : ""}">p${p.priority}</span>
            <span class="what"><span class="who">${esc(who)}</span> <span class="why">${esc(why || "—")}${p["alert-title"] ? " · alert" : ""}</span></span>
            <span class="o ${esc(outcome)}">${p.status} ${esc(label)}</span>
            ${flagged ? `<span class="reasons">${esc(reasons.join("; "))}</span>` : ""}</li>`;
        }
        function chip(label, value, cls) { return `<span class="chip ${cls || ""}">${esc(label)}<b>${Number(value || 0).toLocaleString("en-US")}</b></span>`; }

        function draw() {
          const f = frame, now = serverNow();
          const lc = f.lifecycles, o = f.outcomes;
          $("counts").innerHTML = chip("activities", f.total) + chip("active", lc.active, "active") + chip("stale", lc.stale, "stale")
            + chip("ended", lc.ended, "ended") + (lc.pending ? chip("pending", lc.pending) : "") + (lc.dismissed ? chip("dismissed", lc.dismissed) : "")
            + chip("rendered", o.rendered, "active") + chip("would-not-render", o["would-not-render"], "bad")
            + chip("dropped-old", o["dropped-old"], "old") + chip("throttled", o.throttled, "old") + chip("alerts", o.alerts)
            + (f["duplicate-starts"] ? chip("second starts (two activities on one phone)", f["duplicate-starts"], "bad duplicate") : "");
          drawAudiences(f);
          const note = $("scale-note");
          if (f.matched > f.activities.length || f.query) {
            note.hidden = false;
            note.textContent = f.query
              ? `${f.matched.toLocaleString("en-US")} of ${f.total.toLocaleString("en-US")} activities match “${f.query}”; showing ${f.activities.length}, by relevance.`
              : `Showing ${f.activities.length} of ${f.total.toLocaleString("en-US")} activities, by relevance (as the Lock Screen orders them). Search by token, id or name to find one.`;
          } else {
            note.hidden = true;
          }
          const list = $("activities");
          list.classList.toggle("few", f.activities.length <= 2);
          if (!f.activities.length) {
            list.innerHTML = `<p class="empty">${f.query ? "No activity matches." : "Waiting for the first push…"}</p>`;
            cardHTML.clear();
          } else {
            // Redraw only the cards whose content changed, so a fresh alert's banner is not restarted.
            const ids = f.activities.map((item) => item.activity.id);
            if (list.querySelector(".empty")) list.innerHTML = "";
            for (const el of Array.from(list.children)) if (!ids.includes(el.dataset.id)) { cardHTML.delete(el.dataset.id); el.remove(); }
            f.activities.forEach((item, index) => {
              const html = card(item);
              const key = html.replace(/<span data-until="[^"]*">[^<]*<\/span>/g, "");
              let el = list.querySelector(`[data-id="${CSS.escape(item.activity.id)}"]`);
              if (!el || cardHTML.get(item.activity.id) !== key) {
                const box = document.createElement("div");
                box.innerHTML = html;
                const fresh = box.firstElementChild;
                if (el) el.replaceWith(fresh); else list.appendChild(fresh);
                el = fresh;
                cardHTML.set(item.activity.id, key);
              }
              if (list.children[index] !== el) list.insertBefore(el, list.children[index]);
            });
          }
          const first = f.activities[0];
          const rows = f.activities.slice(0, 6).map((item) => {
            const a = item.activity, max = f["budget-per-hour"], left = a["budget-remaining"];
            const cls = left === 0 ? "empty" : left <= max / 4 ? "low" : "";
            return `<div class="budget-row"><span>${esc(item.name || a.id.slice(0, 14))}</span><span class="bar"><i class="${cls}" style="width:${Math.min(100, 100 * left / max)}%"></i></span><span class="n">${left}/${max}</span></div>`;
          });
          $("budget").innerHTML = first
            ? rows.join("") + `<div class="budget-row"><span class="hint">priority-10 pushes left this hour</span></div>`
            : `<span class="hint">no activity yet</span>`;
          $("timeline").innerHTML = f.timeline.slice().reverse().map((p) => pushRow(p, false)).join("") || `<li class="push"><span></span><span></span><span class="what">no pushes yet</span></li>`;
          $("problems").innerHTML = f.notable.slice().reverse().map((p) => pushRow(p, true)).join("") || `<li class="push"><span></span><span></span><span class="what">none: every push rendered</span></li>`;
          const statuses = Object.entries(f.statuses).map(([s, n]) => `${s}×${n.toLocaleString("en-US")}`).join(" ");
          $("totals").textContent = `${f.requests.toLocaleString("en-US")} requests${statuses ? " · " + statuses : ""}`;
          tickLive();
        }

        // Between frames: countdowns move, stale dates pass, banners fade.
        function tickLive() {
          const now = serverNow();
          for (const el of document.querySelectorAll("[data-until]")) el.textContent = countdown(Number(el.dataset.until) - now);
          for (const el of document.querySelectorAll(".activity[data-stale-at]")) {
            const at = Number(el.dataset.staleAt);
            if (at && now >= at && el.classList.contains("active")) {
              el.classList.replace("active", "stale");
              const label = el.querySelector(".state");
              if (label) label.textContent = "stale";
            }
          }
          for (const el of document.querySelectorAll("[data-alert-until]")) if (now >= Number(el.dataset.alertUntil)) el.remove();
        }
        setInterval(() => { if (frame) tickLive(); }, 1000);

        let typing = null;
        $("search").addEventListener("input", (event) => {
          clearTimeout(typing);
          typing = setTimeout(() => { query = event.target.value.trim(); connect(); }, 250);
        });
        connect();
        """#
}
