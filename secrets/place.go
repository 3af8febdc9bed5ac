package secrets

import "fmt"

// Place is where a sealed value is kept: the table, column and row of the
// database that hold it (or, for a value handed to a user, what it is).
// Sealing binds the value to its place (associated data), so that a value
// copied into another row, column or table does not open there.
type Place struct {
	Table, Column string
	// Row is the row's key, such as its id.
	Row string
	// V1Label is the label version-1 values at this place were sealed with
	// (Styrmin before key ids); "" when there are none.
	V1Label string
}

// At is the place of the row with key row in table's column.
func At(table, column string, row any) Place {
	return Place{Table: table, Column: column, Row: fmt.Sprint(row)}
}

// WithV1Label is p whose version-1 values were sealed with label.
func (p Place) WithV1Label(label string) Place {
	p.V1Label = label
	return p
}

// String names the place, as its values' associated data.
func (p Place) String() string {
	return fmt.Sprintf("%s.%s row %s", p.Table, p.Column, p.Row)
}
