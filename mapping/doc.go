// Package mapping turns what Chrome reports into the protocol's answers.
//
// It owns the element model of docs/protocol.md §5 (roles, states,
// pruning, budgets), the ids of §5.2 (their format: docs/ids.md) and the
// location arithmetic of §6. Section numbers in this package's comments
// are those of docs/protocol.md.
//
// It is pure: it makes no CDP calls and keeps no connection. Its input is
// data (accessibility nodes exactly as Chrome's Accessibility domain
// returns them, plus what the cdp package learned about windows, tabs,
// focus and the pointer); its output is values that marshal to the wire
// format. It uses cdproto's data types but must not
// import this module's cdp or mcp packages.
//
// The tree of a browser (§5.5) is built by [Build]:
//
//	root := mapping.Build(browser, ids, budget)
//	if mapping.OverBudget(root, budget) {
//		// a cut keeps what is on screen: the caller locates it first
//		mapping.ApplyBudgetOnScreen(root, budget, browser, ids)
//	}
//
// It is tested on accessibility trees recorded from Chromium, kept in
// testdata/, against golden output.
package mapping
