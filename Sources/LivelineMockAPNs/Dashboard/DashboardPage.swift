/// The dashboard page: one HTML document with its CSS and JavaScript inline, compiled into the
/// binary, so it works with no network and nothing to install.
///
/// The page opens `GET /events` (Server-Sent Events) and redraws from each frame
/// (``DashboardFrame``): every shown activity as the Lock Screen and the Dynamic Island's
/// compact, minimal and expanded presentations would draw it, the alert banner of a fresh
/// alert, stale and ended states with their countdowns; beside them the budget, the push
/// timeline and the pushes that did not render. Above them, a sender's audiences (keys fanned
/// out to many devices): followers by state, the newest fan-out's progress, and one follower's
/// Lock Screen as their sample, instead of a card per device. Between frames a one-second timer moves the
/// countdowns and dims activities whose stale date passes. The parts live in extensions:
/// `+Style` (CSS) and `+Script` (JavaScript).
enum DashboardPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Liveline · live device</title>
        <style>\(style)</style>
        </head>
        <body>
        <header class="topbar">
          <div class="brand"><span class="dot" id="conn" title="connection"></span>Liveline <span class="sub">live device</span></div>
          <div class="counts" id="counts"></div>
          <input id="search" type="search" placeholder="Search token, id or name" autocomplete="off" spellcheck="false">
        </header>
        <main>
          <section id="screen" aria-label="Activities">
            <div id="audiences" aria-label="Audiences" hidden></div>
            <div id="scale-note" class="scale-note" hidden></div>
            <div id="activities"><p class="empty">Waiting for the first push…</p></div>
          </section>
          <aside id="side" aria-label="Pushes">
            <section class="panel" id="budget-panel"><h2>Budget</h2><div id="budget"></div></section>
            <section class="panel" id="problems-panel"><h2>Not rendered <span class="hint">would-not-render · dropped-old · throttled · refused</span></h2><ol id="problems" class="pushes"></ol></section>
            <section class="panel grow"><h2>Push timeline <span class="hint" id="totals"></span></h2><ol id="timeline" class="pushes"></ol></section>
          </aside>
        </main>
        <script>\(script)</script>
        </body>
        </html>
        """

    /// The page as UTF-8, made once.
    static let bytes: [UInt8] = Array(html.utf8)
}
