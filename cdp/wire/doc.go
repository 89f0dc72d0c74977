// Package wire is the provider's wire to a browser: one websocket
// connection carrying the DevTools protocol, its sessions, and the health
// of the pages behind them.
//
// It owns: the websocket transport (transport.go: coder/websocket behind
// chromedp's Transport interface, each message decoded from its own
// bytes), the connection (conn.go: the browser session and the flat
// sessions of attached targets multiplexed over it, so that cdproto's
// typed Call runs on any of them, or Send writes a command and leaves its
// answer to wait for later; replies routed by session, events to
// each session's handler and subscribers, a deadline on the browser
// session's calls that drops a stalled connection), dialling in the
// background and keeping that one dial while a browser asks its person
// whether to allow it (dial.go: Dial, ErrConsentPending,
// ErrConsentDeclined), and each page session's health (health.go: a
// crashed page, a JavaScript dialog open, a page that does not answer;
// calls to such a page fail at once, and a probe tells when it answers
// again).
//
// What it never does: it knows nothing of accessibility, documents,
// windows or tabs, and imports neither package cdp/warm nor mapping; it
// never finds or starts a browser (package cdp/browsers resolves the URL
// it dials) and never words a failure for a host. It enables no domain
// and runs no script: what is called on a session is its caller's. Its
// owner (package cdp's Provider) learns of a page's health through an
// Owner's Changed func, and says when a page is busy with a long call of
// its own through the busy func of Conn.Session; how a page that cannot
// answer is reported is the owner's.
package wire
