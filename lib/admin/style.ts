/**
 * The interface's one stylesheet, served from the package (no CDN, no build step) at a URL that
 * carries its hash, so that it can be cached for a year and still change with a release.
 */
import { createHash } from 'crypto';

export const ADMIN_CSS = `
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #f6f7f9; --accent: #1f5fbf; --bad: #a61b1b; --ok: #17663a; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
header.top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .6rem 1.2rem; background: #fff; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 600; color: var(--fg); text-decoration: none; }
header.top nav { display: flex; gap: 1rem; flex: 1; }
header.top form { margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1.2rem; }
h1 { font-size: 1.5rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .6rem; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef0f4; font-weight: 600; }
/* A word too long for its cell breaks; a value that may be long without a space (a hash, a serial, JSON, a
   host name, an actor) breaks anywhere, so that its column may narrow: the page never scrolls sideways. */
td { overflow-wrap: break-word; }
td.mono, td.long { overflow-wrap: anywhere; }
dl.fields { display: grid; grid-template-columns: minmax(9rem, max-content) 1fr; gap: .3rem 1rem; background: #fff; border: 1px solid var(--line); padding: .8rem 1rem; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; overflow-wrap: anywhere; }
.mono, code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
pre { background: #fff; border: 1px solid var(--line); padding: .8rem; overflow-x: auto; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: .8rem; font-size: .85em; font-weight: 600; border: 1px solid currentColor; }
.badge.valid { color: var(--ok); } .badge.revoked, .badge.expired { color: var(--bad); } .badge.expiring { color: var(--warn); }
form.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: flex-end; margin-bottom: 1rem; }
label { display: block; font-weight: 600; margin-bottom: .2rem; }
label.inline { display: inline; font-weight: normal; }
input, select, textarea, button { font: inherit; padding: .4rem .55rem; border: 1px solid #8a93a5; border-radius: .3rem; background: #fff; color: var(--fg); }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: 0; }
button.danger { background: var(--bad); border-color: var(--bad); }
.field { margin-bottom: 1rem; }
.message { padding: .6rem .9rem; border-radius: .3rem; margin-bottom: 1rem; background: #fff; border: 1px solid var(--line); }
.message.error { border-color: var(--bad); color: var(--bad); }
.message.ok { border-color: var(--ok); color: var(--ok); }
.login { max-width: 24rem; margin: 3rem auto; background: #fff; border: 1px solid var(--line); padding: 1.5rem; }
.actions { display: flex; flex-wrap: wrap; gap: .8rem; margin: 1rem 0; }
.pager { margin-top: 1rem; }
ul.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: .8rem; list-style: none; margin: 0 0 1rem; padding: 0; }
.card a { display: block; height: 100%; padding: .7rem .9rem; background: #fff; border: 1px solid var(--line); border-left: .3rem solid var(--ok); border-radius: .3rem; color: var(--fg); text-decoration: none; }
.card a:hover, .card a:focus { border-color: var(--accent); }
.card.expiring a { border-left-color: var(--warn); } .card.expired a, .card.revoked a { border-left-color: var(--bad); }
.card .figure { display: block; font-size: 1.6rem; font-weight: 600; }
svg.expiry-chart { display: block; width: 100%; max-width: 48rem; height: auto; background: #fff; border: 1px solid var(--line); }
.expiry-chart .bar { fill: var(--accent); } .expiry-chart .axis { stroke: var(--muted); }
.expiry-chart text { font-size: 12px; fill: var(--fg); } .expiry-chart .tick { fill: var(--muted); }
details { margin: .6rem 0 1rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
input, select, textarea { max-width: 100%; }
/* A phone: nothing is hidden; a wide table scrolls sideways inside itself, the page never does. */
@media (max-width: 40rem) {
  main { padding: .8rem; }
  header.top nav { flex-basis: 100%; flex-wrap: wrap; gap: .4rem .9rem; }
  table { display: block; overflow-x: auto; }
  dl.fields { grid-template-columns: 1fr; }
  dl.fields dd { margin-bottom: .4rem; }
}
`;

export const ADMIN_CSS_HASH = createHash('sha256').update(ADMIN_CSS).digest('hex').slice(0, 16);
