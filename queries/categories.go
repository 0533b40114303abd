package queries

import _ "embed" // the statements below are embedded strings

// The category statements: the board's grouping of sessions (manage_categories).

// LockCategories serialises category writes.
//
//go:embed lock_categories.cypher
var LockCategories string

// ListCategories reads every category with its session count.
//
//go:embed list_categories.cypher
var ListCategories string

// CategoryByName finds the category holding a name.
//
//go:embed category_by_name.cypher
var CategoryByName string

// InsertCategory creates a category.
//
//go:embed insert_category.cypher
var InsertCategory string

// UpdateCategory writes a category's fields.
//
//go:embed update_category.cypher
var UpdateCategory string

// GetCategory reads one category.
//
//go:embed get_category.cypher
var GetCategory string

// DeleteCategory removes a category and uncategorizes its sessions.
//
//go:embed delete_category.cypher
var DeleteCategory string

// ReorderCategories sets the listed categories' positions.
//
//go:embed reorder_categories.cypher
var ReorderCategories string
