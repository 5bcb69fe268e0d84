extension DashboardPage {
    /// A dark Lock Screen look, large enough to read on a projector.
    static let style = #"""
        :root {
          --bg: #05060a; --panel: #101218; --line: #232633; --text: #f5f5f7; --muted: #9a9cab;
          --good: #30d158; --warn: #ffd60a; --bad: #ff453a; --old: #ff9f0a; --tint: #0a84ff;
          font-family: -apple-system, "SF Pro Display", "Helvetica Neue", "Liberation Sans", Arial, sans-serif;
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: radial-gradient(1200px 700px at 25% -10%, #1b2440 0%, var(--bg) 60%); color: var(--text); min-height: 100vh; }
        .topbar { display: flex; align-items: center; gap: 20px; padding: 14px 24px; border-bottom: 1px solid var(--line); background: rgba(10,12,18,.8); position: sticky; top: 0; z-index: 5; }
        .brand { font-weight: 700; font-size: 20px; letter-spacing: .2px; display: flex; align-items: center; gap: 10px; white-space: nowrap; }
        .brand .sub { color: var(--muted); font-weight: 500; }
        .dot { width: 10px; height: 10px; border-radius: 50%; background: var(--muted); display: inline-block; }
        .dot.live { background: var(--good); box-shadow: 0 0 10px var(--good); }
        .dot.lost { background: var(--bad); }
        .counts { display: flex; flex-wrap: wrap; gap: 8px; flex: 1; }
        .chip { border-radius: 999px; padding: 4px 11px; font-size: 14px; background: #1a1d27; color: var(--muted); white-space: nowrap; }
        .chip b { color: var(--text); font-weight: 650; margin-left: 4px; }
        .chip.active b { color: var(--good); } .chip.stale b { color: var(--warn); } .chip.ended b { color: #c7c7cc; }
        .chip.bad b { color: var(--bad); } .chip.old b { color: var(--old); }
        #search { width: 280px; padding: 9px 14px; border-radius: 12px; border: 1px solid var(--line); background: #0c0e14; color: var(--text); font-size: 15px; }
        main { display: grid; grid-template-columns: minmax(0, 1fr) 460px; gap: 22px; padding: 22px 24px; }
        .scale-note { color: var(--muted); font-size: 15px; margin: 0 0 14px; }
        .empty { color: var(--muted); font-size: 20px; padding: 40px 0; }
        .activity { display: grid; grid-template-columns: 440px minmax(0, 1fr); gap: 26px; align-items: start; margin-bottom: 34px; }
        .activity .label { grid-column: 1 / -1; color: var(--muted); font-size: 13px; letter-spacing: .6px; text-transform: uppercase; display: flex; gap: 12px; align-items: baseline; margin-bottom: -14px; }
        .activity .label .name { color: var(--text); font-weight: 650; text-transform: none; letter-spacing: 0; font-size: 15px; }
        .activity .label .token { font-family: "DejaVu Sans Mono", monospace; text-transform: none; letter-spacing: 0; }
        .phone { position: relative; }
        .banner { border-radius: 20px; padding: 12px 16px; margin-bottom: 10px; background: rgba(58,58,60,.92); display: flex; gap: 12px; align-items: center; box-shadow: 0 0 0 1px rgba(255,255,255,.06), 0 8px 30px rgba(0,0,0,.5); }
        .banner.lit { animation: light .5s ease-out 1; box-shadow: 0 0 0 2px var(--tint), 0 0 34px var(--tint); }
        @keyframes light { from { transform: translateY(-10px) scale(.98); } to { transform: none; } }
        .banner .app { width: 38px; height: 38px; border-radius: 9px; flex: none; display: grid; place-items: center; background: var(--tint); }
        .banner .title { font-weight: 650; font-size: 16px; } .banner .body { color: #d1d1d6; font-size: 15px; margin-top: 2px; }
        .banner .when { margin-left: auto; color: var(--muted); font-size: 13px; align-self: flex-start; }
        .lock { border-radius: 24px; padding: 16px 18px 18px; background: linear-gradient(180deg, rgba(44,44,48,.92), rgba(28,28,32,.92)); box-shadow: 0 0 0 1px rgba(255,255,255,.07), 0 10px 40px rgba(0,0,0,.55); transition: opacity .4s, filter .4s; }
        .lock .top { display: flex; align-items: center; gap: 12px; }
        .lock .glyph { width: 40px; height: 40px; border-radius: 50%; background: var(--tint); display: grid; place-items: center; flex: none; }
        .lock .title { font-weight: 700; font-size: 19px; line-height: 1.2; }
        .lock .state { margin-left: auto; font-size: 12px; font-weight: 700; letter-spacing: .8px; text-transform: uppercase; padding: 3px 9px; border-radius: 999px; white-space: nowrap; }
        .lock .lines { margin-top: 12px; }
        .lock .line { font-size: 17px; color: #e5e5ea; line-height: 1.35; margin-top: 4px; overflow-wrap: anywhere; }
        .lock .line.hero { font-size: 34px; font-weight: 750; color: var(--text); letter-spacing: .5px; font-variant-numeric: tabular-nums; }
        .lock .foot { display: flex; gap: 14px; margin-top: 12px; color: var(--muted); font-size: 13px; }
        .lock .problem { margin-top: 10px; font-size: 13px; color: var(--bad); }
        .stale .lock { opacity: .55; filter: saturate(.35); }
        .stale .state { background: rgba(255,214,10,.18); color: var(--warn); }
        .ended .state { background: rgba(199,199,204,.18); color: #e5e5ea; }
        .dismissed .lock, .pending .lock { opacity: .35; }
        .active .state { background: rgba(48,209,88,.16); color: var(--good); }
        .islands { display: flex; flex-direction: column; gap: 16px; align-items: flex-start; }
        .island-row { display: flex; gap: 16px; align-items: center; }
        .island { background: #000; color: #fff; box-shadow: 0 0 0 1px #26262b, 0 6px 24px rgba(0,0,0,.6); }
        .island.compact { border-radius: 999px; height: 40px; min-width: 240px; display: flex; align-items: center; justify-content: space-between; padding: 0 16px; gap: 70px; font-weight: 650; font-size: 16px; }
        .island.compact .lead, .island.compact .trail { display: flex; gap: 7px; align-items: center; white-space: nowrap; color: var(--tint); }
        .island.compact .trail { color: #fff; font-variant-numeric: tabular-nums; }
        .island.minimal { width: 40px; height: 40px; border-radius: 50%; display: grid; place-items: center; font-weight: 700; font-size: 13px; color: var(--tint); overflow: hidden; }
        /* What does not fit a region is cut with an ellipsis, as the system does, never drawn over its neighbours. */
        .island .fit { display: block; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .island.minimal .fit { max-width: 34px; text-align: center; }
        .island.compact { max-width: 320px; }
        .island.compact .lead { min-width: 0; overflow: hidden; }
        .island.expanded { border-radius: 38px; padding: 16px 22px 18px; width: 100%; max-width: 440px; }
        .island.expanded .regions { display: grid; grid-template-columns: 1fr auto 1fr; gap: 10px; align-items: center; }
        .island.expanded .lead { font-weight: 700; font-size: 18px; color: var(--tint); }
        .island.expanded .center { text-align: center; font-size: 14px; color: #d1d1d6; }
        .island.expanded .trail { text-align: right; font-weight: 700; font-size: 18px; font-variant-numeric: tabular-nums; }
        .island.expanded .bottom { margin-top: 10px; font-size: 15px; color: #e5e5ea; overflow-wrap: anywhere; }
        .caption { color: var(--muted); font-size: 11px; letter-spacing: .8px; text-transform: uppercase; margin-bottom: 8px; }
        .phone .caption { margin-bottom: 12px; }
        .budget-row .hint { grid-column: 1 / -1; color: var(--muted); font-size: 12px; }
        .budget-row > span:first-child { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .stale .island { opacity: .6; }
        .panel { background: rgba(16,18,24,.92); border: 1px solid var(--line); border-radius: 18px; padding: 14px 16px; margin-bottom: 16px; }
        .panel h2 { font-size: 14px; letter-spacing: .8px; text-transform: uppercase; color: var(--muted); margin: 0 0 10px; font-weight: 650; }
        .panel h2 .hint { text-transform: none; letter-spacing: 0; font-weight: 400; font-size: 12px; margin-left: 6px; }
        .budget-row { display: grid; grid-template-columns: minmax(0, 1fr) 150px 56px; gap: 10px; align-items: center; font-size: 14px; margin: 6px 0; }
        .budget-row .bar { height: 10px; border-radius: 6px; background: #24262f; overflow: hidden; }
        .budget-row .bar i { display: block; height: 100%; background: var(--good); border-radius: 6px; }
        .budget-row .bar i.low { background: var(--old); } .budget-row .bar i.empty { background: var(--bad); }
        .budget-row .n { text-align: right; font-variant-numeric: tabular-nums; color: #d1d1d6; }
        .pushes { list-style: none; margin: 0; padding: 0; max-height: 520px; overflow: auto; }
        #problems { max-height: 260px; }
        .push { display: grid; grid-template-columns: 64px 34px 1fr auto; gap: 8px; padding: 7px 4px; border-top: 1px solid #1c1f29; font-size: 13.5px; align-items: baseline; }
        .push:first-child { border-top: 0; }
        .push .t { color: var(--muted); font-variant-numeric: tabular-nums; }
        .push .p { font-weight: 700; font-size: 12px; border-radius: 6px; text-align: center; padding: 1px 0; background: #23252e; }
        .push .p.high { background: rgba(10,132,255,.25); color: #64d2ff; }
        .push .what { overflow-wrap: anywhere; }
        .push .what .who { color: var(--text); font-weight: 600; }
        .push .what .why { color: var(--muted); display: block; }
        .push .o { font-weight: 650; font-size: 12.5px; white-space: nowrap; }
        .push .o.rendered { color: var(--good); }
        .push.notable { background: rgba(255,69,58,.08); border-left: 3px solid var(--bad); }
        .push.notable.dropped-old, .push.notable.throttled { background: rgba(255,159,10,.09); border-left-color: var(--old); }
        .push.notable .o { color: var(--bad); }
        .push.notable.duplicate { background: rgba(255,69,58,.16); border-left-width: 5px; }
        .chip.duplicate { background: rgba(255,69,58,.2); color: #ffb4ad; box-shadow: 0 0 0 1px var(--bad); }
        .push.notable.dropped-old .o, .push.notable.throttled .o { color: var(--old); }
        .push .reasons { grid-column: 2 / -1; color: #ffb4ad; font-size: 12.5px; }
        .push.dropped-old .reasons, .push.throttled .reasons { color: #ffd199; }
        #activities.few .activity { grid-template-columns: 500px minmax(0, 1fr); }
        #activities.few .lock { padding: 20px 22px 22px; border-radius: 28px; }
        #activities.few .lock .title { font-size: 22px; }
        #activities.few .lock .line { font-size: 20px; }
        #activities.few .lock .line.hero { font-size: 54px; }
        #activities.few .island.compact { height: 46px; font-size: 19px; min-width: 270px; }
        #activities.few .island.minimal { width: 46px; height: 46px; font-size: 15px; }
        #activities.few .island.expanded .lead, #activities.few .island.expanded .trail { font-size: 22px; }
        #activities.few .island.expanded .bottom { font-size: 17px; }
        #audiences { margin-bottom: 26px; }
        .section { font-size: 14px; letter-spacing: .8px; text-transform: uppercase; color: var(--muted); margin: 0 0 12px; font-weight: 650; }
        .section .hint { text-transform: none; letter-spacing: 0; font-weight: 400; font-size: 12px; margin-left: 6px; }
        .audience { background: rgba(16,18,24,.92); border: 1px solid var(--line); border-radius: 18px; padding: 14px 18px 18px; margin-bottom: 16px; }
        .audience .head { display: flex; align-items: baseline; gap: 14px; margin-bottom: 12px; flex-wrap: wrap; }
        .audience .key { font-size: 20px; font-weight: 700; overflow-wrap: anywhere; }
        .audience .total { color: var(--muted); font-size: 15px; } .audience .total b { color: var(--text); font-size: 20px; font-variant-numeric: tabular-nums; }
        .audience .body { display: grid; grid-template-columns: minmax(0, 1fr) 380px; gap: 22px; align-items: start; }
        .tiles { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 8px; }
        .tile { background: #161922; border-radius: 12px; padding: 8px 12px; display: flex; flex-direction: column; gap: 2px; }
        .tile b { font-size: 22px; font-variant-numeric: tabular-nums; } .tile span { color: var(--muted); font-size: 12.5px; }
        .tile.good b { color: var(--good); } .tile.warn b { color: var(--warn); } .tile.bad b { color: var(--bad); }
        .tile.doubt { background: rgba(255,159,10,.16); box-shadow: inset 0 0 0 2px var(--old); } .tile.doubt b { color: var(--old); }
        .doubt-note { margin-top: 10px; padding: 8px 12px; border-radius: 10px; background: rgba(255,159,10,.1); border-left: 3px solid var(--old); color: #ffd199; font-size: 13.5px; line-height: 1.4; }
        .doubt-note b { color: var(--old); }
        .fanout { margin-top: 12px; font-size: 14px; }
        .fanout.idle { color: var(--muted); }
        .fanout .what { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; margin-bottom: 8px; }
        .fanout .event { font-weight: 700; text-transform: uppercase; letter-spacing: .6px; font-size: 12.5px; background: rgba(10,132,255,.22); color: #64d2ff; border-radius: 6px; padding: 2px 8px; }
        .fanout .fstate { font-weight: 650; font-size: 12.5px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); }
        .fanout.running .fstate { color: var(--warn); } .fanout.done .fstate { color: var(--good); }
        .fanout code { font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px; color: #d1d1d6; overflow-wrap: anywhere;
          flex-basis: 100%; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
        .fanout .bar { height: 12px; border-radius: 6px; background: #24262f; overflow: hidden; }
        .fanout .bar i { display: block; height: 100%; background: var(--tint); border-radius: 6px; transition: width .3s; }
        .fanout.done .bar i { background: var(--good); }
        .fanout .numbers { display: flex; flex-wrap: wrap; gap: 6px 18px; margin-top: 8px; color: var(--muted); }
        .fanout .numbers b { color: var(--text); font-variant-numeric: tabular-nums; } .fanout .numbers .bad b { color: var(--bad); }
        .fanout .failures { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
        .fanout .reason { background: rgba(255,69,58,.12); color: #ffb4ad; border-radius: 999px; padding: 3px 10px; font-size: 12.5px; } .fanout .reason b { color: var(--bad); }
        .audience .sample .lock .line.hero { font-size: 28px; }
        .audience .sample .hint { color: var(--muted); font-size: 14px; }
        .audience .body:has(.sample.both) { grid-template-columns: minmax(0, 1fr); }
        .audience .sample.both { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
        .audience .sample.both > .phone { flex: 1 1 300px; max-width: 380px; min-width: 0; }
        .android .statusbar { display: flex; align-items: center; gap: 10px; padding: 6px 14px; border-radius: 14px 14px 0 0; background: #000; font-size: 13px; color: #e8eaed; }
        .android .statusbar .icons { margin-left: auto; color: #9aa0a6; font-size: 11px; }
        .android .lu-chip { background: #1e8e3e; color: #fff; border-radius: 999px; padding: 2px 10px; font-weight: 700; font-variant-numeric: tabular-nums; }
        .android .lu { background: #202124; border-radius: 0 0 22px 22px; padding: 14px 16px 16px; box-shadow: 0 0 0 1px rgba(255,255,255,.07), 0 10px 40px rgba(0,0,0,.55); }
        .android .lu.ended { opacity: .55; }
        .android .lu-top { display: flex; align-items: center; gap: 8px; color: #9aa0a6; font-size: 12px; }
        .android .lu-icon { width: 18px; height: 18px; border-radius: 50%; background: #8ab4f8; flex: none; }
        .android .lu-tag { margin-left: auto; color: #81c995; font-weight: 700; letter-spacing: .4px; text-transform: uppercase; font-size: 11px; }
        .android .lu-title { margin-top: 10px; font-size: 17px; font-weight: 650; color: #e8eaed; line-height: 1.3; overflow-wrap: anywhere; }
        .android .lu-text { margin-top: 4px; font-size: 15px; color: #bdc1c6; line-height: 1.35; overflow-wrap: anywhere; }
        .android .lu-bar { margin-top: 12px; height: 6px; border-radius: 3px; background: #3c4043; overflow: hidden; }
        .android .lu-bar i { display: block; height: 100%; background: #81c995; }
        .android .lu-why { margin-top: 10px; color: var(--warn); font-size: 13px; }
        @media (max-width: 1250px) { main { grid-template-columns: 1fr; } .activity { grid-template-columns: 1fr; } }
        @media (max-width: 760px) { .audience .body, .audience .body:has(.sample.both) { grid-template-columns: 1fr; } .tiles { grid-template-columns: repeat(2, minmax(0, 1fr)); }
          .topbar { flex-wrap: wrap; gap: 10px; padding: 10px 12px; } .counts { flex-basis: 100%; order: 2; } #search { width: 100%; order: 3; }
          main { padding: 14px 12px; } }
        """#
}
