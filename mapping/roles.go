package mapping

// Protocol roles that the mapping refers to by name.
const (
	roleDocument = "Document"
	roleGroup    = "Group"
	roleText     = "Text"
	roleTextArea = "TextArea"
	roleCode     = "Code"
	// The browser's own elements (browser.go).
	roleApplication = "Application"
	roleWindow      = "Window"
	roleTabList     = "TabList"
	roleTab         = "Tab"
)

// roles is the table of docs/protocol.md §5.4, completed for every role name
// Chrome's Accessibility domain can report: the computed role (the ARIA
// name, or Chrome's internal name) to the protocol role.
//
// The names Chrome can report are listed, with where they come from, in
// testdata/chrome-roles.txt; TestEveryChromeRoleIsMapped fails when one of
// them has no entry here. A few more entries are ARIA synonyms that the
// table of §5.4 names and older Chromes reported (img, presentation,
// MenuListOption, WebArea, fieldset, details).
//
// A role mapped to "" is never an element: its children move up. A Group
// is an element only when it has a title or a state of its own (see
// [mapper.element]); so is every role in [namedOnly]. A name missing here
// (a role of a later Chrome) is treated as a Group. docs/roles.md gives the
// reason for each entry that the table of §5.4 does not name.
var roles = map[string]string{
	"RootWebArea": roleDocument,
	"WebArea":     roleDocument,

	// Controls.
	"button":                    "Button",
	"DisclosureTriangle":        "Button", // <summary>
	"DisclosureTriangleGrouped": "Button", // <summary> of a named group of <details>
	"ColorWell":                 "Button", // <input type=color>
	"link":                      "Link",
	"doc-backlink":              "Link",
	"doc-biblioref":             "Link",
	"doc-glossref":              "Link",
	"doc-noteref":               "Link",
	"textbox":                   "TextField", // TextArea when multi-line
	"searchbox":                 "TextField",
	"Date":                      "TextField", // <input type=date>, month, week
	"DateTime":                  "TextField", // <input type=datetime-local>
	"InputTime":                 "TextField", // <input type=time>
	"checkbox":                  "CheckBox",
	"radio":                     "RadioButton",
	"switch":                    "Switch",
	"radiogroup":                "RadioGroup",
	"combobox":                  "ComboBox",
	"listbox":                   "ListBox",
	"option":                    "Option",
	"MenuListOption":            "Option",
	"slider":                    "Slider",
	"spinbutton":                "SpinButton",
	"progressbar":               "ProgressBar",
	"meter":                     "Meter",
	"scrollbar":                 "ScrollBar",
	"separator":                 "Separator",
	"doc-pagebreak":             "Separator",

	// Text and its structure.
	"heading":             "Heading",
	"paragraph":           "Paragraph",
	"StaticText":          roleText,
	"img":                 "Image",
	"image":               "Image",
	"graphics-document":   "Image",
	"graphics-symbol":     "Image",
	"doc-cover":           "Image",
	"SvgRoot":             "Image", // only when named
	"figure":              "Figure",
	"list":                "List",
	"directory":           "List",
	"DirectoryDeprecated": "List",
	"listitem":            "ListItem",
	"doc-biblioentry":     "ListItem",
	"doc-endnote":         "ListItem",
	"math":                "Math",
	"MathMLMath":          "Math",
	"code":                "Code",
	"Video":               "Media",
	"Audio":               "Media",
	"Canvas":              "Canvas",

	// Composite widgets.
	"menu":             "Menu",
	"menubar":          "MenuBar",
	"menuitem":         "MenuItem",
	"menuitemcheckbox": "MenuItem",
	"menuitemradio":    "MenuItem",
	"toolbar":          "Toolbar",
	"tablist":          "TabList",
	"tab":              "Tab",
	"tabpanel":         "TabPanel",
	"table":            "Table",
	"grid":             "Grid",
	"treegrid":         "Grid",
	"ListGrid":         "Grid",
	"row":              "Row",
	"cell":             "Cell",
	"gridcell":         "Cell",
	"columnheader":     "ColumnHeader",
	"rowheader":        "RowHeader",
	"tree":             "Tree",
	"treeitem":         "TreeItem",

	// Windows, live regions, landmarks.
	"dialog":        "Dialog",
	"alertdialog":   "Dialog",
	"alert":         "Alert",
	"status":        "Status", // and <output>
	"log":           "Status",
	"timer":         "Status",
	"marquee":       "Status",
	"tooltip":       "Tooltip",
	"banner":        "Banner",
	"navigation":    "Navigation",
	"doc-toc":       "Navigation",
	"doc-pagelist":  "Navigation",
	"main":          "Main",
	"complementary": "Complementary",
	"contentinfo":   "ContentInfo",
	"search":        "Search",
	"form":          "Form",   // only when named
	"region":        "Region", // only when named
	"article":       "Article",

	// Groups: elements only with a title or a state.
	"generic":                         roleGroup,
	"group":                           roleGroup,
	"fieldset":                        roleGroup,
	"details":                         roleGroup,
	"application":                     roleGroup,
	"document":                        roleGroup,
	"feed":                            roleGroup,
	"note":                            roleGroup,
	"blockquote":                      roleGroup,
	"caption":                         roleGroup,
	"LabelText":                       roleGroup,
	"Legend":                          roleGroup,
	"Figcaption":                      roleGroup,
	"rowgroup":                        roleGroup,
	"Section":                         roleGroup,
	"sectionheader":                   roleGroup,
	"sectionfooter":                   roleGroup,
	"DescriptionList":                 roleGroup,
	"DescriptionListDetailDeprecated": roleGroup,
	"DescriptionListTermDeprecated":   roleGroup,
	"term":                            roleGroup,
	"definition":                      roleGroup,
	"Abbr":                            roleGroup,
	"emphasis":                        roleGroup,
	"strong":                          roleGroup,
	"mark":                            roleGroup,
	"subscript":                       roleGroup,
	"superscript":                     roleGroup,
	"time":                            roleGroup,
	"deletion":                        roleGroup,
	"insertion":                       roleGroup,
	"suggestion":                      roleGroup,
	"comment":                         roleGroup,
	"Ruby":                            roleGroup,
	"RubyAnnotation":                  roleGroup,
	"PreDeprecated":                   roleGroup,
	"graphics-object":                 roleGroup,
	"EmbeddedObject":                  roleGroup,
	"PluginObject":                    roleGroup,
	"PortalDeprecated":                roleGroup,
	"MathMLFraction":                  roleGroup,
	"MathMLIdentifier":                roleGroup,
	"MathMLMultiscripts":              roleGroup,
	"MathMLNoneScript":                roleGroup,
	"MathMLNumber":                    roleGroup,
	"MathMLOperator":                  roleGroup,
	"MathMLOver":                      roleGroup,
	"MathMLPrescriptDelimiter":        roleGroup,
	"MathMLRoot":                      roleGroup,
	"MathMLRow":                       roleGroup,
	"MathMLSquareRoot":                roleGroup,
	"MathMLStringLiteral":             roleGroup,
	"MathMLSub":                       roleGroup,
	"MathMLSubSup":                    roleGroup,
	"MathMLSup":                       roleGroup,
	"MathMLTable":                     roleGroup,
	"MathMLTableCell":                 roleGroup,
	"MathMLTableRow":                  roleGroup,
	"MathMLText":                      roleGroup,
	"MathMLUnder":                     roleGroup,
	"MathMLUnderOver":                 roleGroup,
	"doc-abstract":                    roleGroup,
	"doc-acknowledgments":             roleGroup,
	"doc-afterword":                   roleGroup,
	"doc-appendix":                    roleGroup,
	"doc-bibliography":                roleGroup,
	"doc-chapter":                     roleGroup,
	"doc-colophon":                    roleGroup,
	"doc-conclusion":                  roleGroup,
	"doc-credit":                      roleGroup,
	"doc-credits":                     roleGroup,
	"doc-dedication":                  roleGroup,
	"doc-endnotes":                    roleGroup,
	"doc-epigraph":                    roleGroup,
	"doc-epilogue":                    roleGroup,
	"doc-errata":                      roleGroup,
	"doc-example":                     roleGroup,
	"doc-footnote":                    roleGroup,
	"doc-foreword":                    roleGroup,
	"doc-glossary":                    roleGroup,
	"doc-index":                       roleGroup,
	"doc-introduction":                roleGroup,
	"doc-notice":                      roleGroup,
	"doc-pagefooter":                  roleGroup,
	"doc-pageheader":                  roleGroup,
	"doc-part":                        roleGroup,
	"doc-preface":                     roleGroup,
	"doc-prologue":                    roleGroup,
	"doc-pullquote":                   roleGroup,
	"doc-qna":                         roleGroup,
	"doc-subtitle":                    roleGroup,
	"doc-tip":                         roleGroup,
	// Roles of native UI that Blink never assigns to web content.
	"Unknown":                roleGroup,
	"Caret":                  roleGroup,
	"Client":                 roleGroup,
	"Desktop":                roleGroup,
	"ImeCandidate":           roleGroup,
	"Keyboard":               roleGroup,
	"Pane":                   roleGroup,
	"PdfActionableHighlight": roleGroup,
	"PdfRoot":                roleGroup,
	"ScrollView":             roleGroup,
	"TitleBar":               roleGroup,
	"WebView":                roleGroup,
	"Window":                 roleGroup,

	// Never elements: their children move up.
	"none":                 "",
	"presentation":         "",
	"LineBreak":            "",
	"InlineTextBox":        "",
	"ListMarker":           "", // and its subtree: see [skipped]
	"LayoutTable":          "",
	"LayoutTableRow":       "",
	"LayoutTableCell":      "",
	"TableHeaderContainer": "",
	"Column":               "",
	"MenuListPopup":        "", // and its subtree: see [skipped]
	// The owner of a child document: the child's Document stands in its
	// place (see [MapFrame]), or nothing when the child was not read.
	"Iframe":               "",
	"IframePresentational": "",
}

// namedOnly are the roles that are elements only when they have a title.
var namedOnly = map[string]bool{"form": true, "region": true, "SvgRoot": true}

// checkable are the Chrome roles whose "checked" property is a state.
var checkable = map[string]bool{
	"checkbox": true, "radio": true, "switch": true,
	"menuitemcheckbox": true, "menuitemradio": true,
}

// valueRoles says which protocol roles carry a value, and where it comes
// from: the node's value as text, or its value text else its number.
var valueRoles = map[string]valueKind{
	"TextField":   valueText,
	roleTextArea:  valueText,
	"ComboBox":    valueText,
	"Slider":      valueNumber,
	"SpinButton":  valueNumber,
	"ProgressBar": valueNumber,
	"Meter":       valueNumber,
}

type valueKind int

const (
	valueText valueKind = iota + 1
	valueNumber
)

// skipped are the Chrome roles dropped with their whole subtree: a closed
// <select>'s popup, whose chosen option is the combobox's value; a list
// item's marker ("1. ", "• "), whose text is its name, never an element,
// and whose children are an ignored node or an unnamed image (Chromium
// 156; older ones gave it a StaticText of the same text, dropped when
// bullets): what a read of the screen does not ask Chrome for
// (warm.PartialNodes).
var skipped = map[string]bool{"MenuListPopup": true, "ListMarker": true}
