package mapping

// Protocol roles that the mapping refers to by name.
const (
	roleDocument = "Document"
	roleGroup    = "Group"
	roleText     = "Text"
	roleTextArea = "TextArea"
)

// roles is the table of PROTOCOL.md 5.4: Chrome's computed role (the
// ARIA name, or Chrome's internal name) to the protocol role. A role
// mapped to "" is never an element: its children move up. A role not in
// the table is a Group, and every Group is an element only when it has a
// title or a state of its own (see [element]).
var roles = map[string]string{
	"RootWebArea": roleDocument,
	"WebArea":     roleDocument,

	"button":             "Button",
	"DisclosureTriangle": "Button",
	"link":               "Link",
	"textbox":            "TextField", // TextArea when multi-line
	"searchbox":          "TextField",
	"checkbox":           "CheckBox",
	"radio":              "RadioButton",
	"switch":             "Switch",
	"radiogroup":         "RadioGroup",
	"combobox":           "ComboBox",
	"listbox":            "ListBox",
	"option":             "Option",
	"MenuListOption":     "Option",
	"slider":             "Slider",
	"spinbutton":         "SpinButton",
	"progressbar":        "ProgressBar",
	"meter":              "Meter",
	"scrollbar":          "ScrollBar",
	"separator":          "Separator",
	"heading":            "Heading",
	"paragraph":          "Paragraph",
	"StaticText":         roleText,
	"img":                "Image",
	"image":              "Image",
	"graphics-document":  "Image",
	"graphics-symbol":    "Image",
	"figure":             "Figure",
	"list":               "List",
	"listitem":           "ListItem",
	"menu":               "Menu",
	"menubar":            "MenuBar",
	"menuitem":           "MenuItem",
	"menuitemcheckbox":   "MenuItem",
	"menuitemradio":      "MenuItem",
	"toolbar":            "Toolbar",
	"tablist":            "TabList",
	"tab":                "Tab",
	"tabpanel":           "TabPanel",
	"table":              "Table",
	"grid":               "Grid",
	"treegrid":           "Grid",
	"row":                "Row",
	"cell":               "Cell",
	"gridcell":           "Cell",
	"columnheader":       "ColumnHeader",
	"rowheader":          "RowHeader",
	"tree":               "Tree",
	"treeitem":           "TreeItem",
	"dialog":             "Dialog",
	"alertdialog":        "Dialog",
	"alert":              "Alert",
	"status":             "Status",
	"log":                "Status",
	"timer":              "Status",
	"marquee":            "Status",
	"tooltip":            "Tooltip",
	"banner":             "Banner",
	"navigation":         "Navigation",
	"main":               "Main",
	"complementary":      "Complementary",
	"contentinfo":        "ContentInfo",
	"search":             "Search",
	"form":               "Form",   // only when named
	"region":             "Region", // only when named
	"article":            "Article",
	"math":               "Math",
	"MathMLMath":         "Math",
	"code":               "Code",
	"Video":              "Media",
	"Audio":              "Media",
	"Canvas":             "Canvas",

	"group":       roleGroup,
	"fieldset":    roleGroup,
	"details":     roleGroup,
	"application": roleGroup,
	"document":    roleGroup,
	"feed":        roleGroup,
	"note":        roleGroup,
	"blockquote":  roleGroup,
	"LabelText":   roleGroup,

	"generic":       "",
	"none":          "",
	"presentation":  "",
	"LineBreak":     "",
	"InlineTextBox": "",
	"ListMarker":    "",
	// The owner of a child document: the child's Document stands in its
	// place (see [MapFrame]), or nothing when the child was not read.
	"Iframe":               "",
	"IframePresentational": "",
}

// namedOnly are the roles that are elements only when they have a title.
var namedOnly = map[string]bool{"form": true, "region": true}

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
// <select>'s popup, whose chosen option is the combobox's value.
var skipped = map[string]bool{"MenuListPopup": true}
