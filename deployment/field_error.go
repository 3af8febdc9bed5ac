package deployment

import (
	"maps"
	"slices"

	"github.com/styrmin/styrmin"
)

// FieldKind is what kind of input a Field names.
type FieldKind string

// The inputs of operations that can be wrong on their own.
const (
	FieldName      FieldKind = "name"
	FieldNamespace FieldKind = "namespace"
	// FieldTeam is the team a new deployment belongs to.
	FieldTeam          FieldKind = "team"
	FieldDriverVersion FieldKind = "driver_version"
	FieldAppVersion    FieldKind = "app_version"
	FieldRevision      FieldKind = "revision"
	// FieldConfirm is the deployment's name typed again to confirm a deletion.
	FieldConfirm FieldKind = "confirm"
	// FieldParameters is the parameters as a whole: what the chart they
	// render requests (a team's CPU and memory quotas).
	FieldParameters FieldKind = "parameters"
	// FieldParam is a parameter of the driver version; Field.Name names it.
	FieldParam FieldKind = "param"
	// FieldPrompt is a prompt of an action (Field.Action, Field.Name), or
	// the whole action when Name is empty.
	FieldPrompt FieldKind = "prompt"
)

// Field names one input of an operation.
type Field struct {
	Kind FieldKind
	// Action is the action whose prompt this is (FieldPrompt only).
	Action string
	// Name is the parameter's or the prompt's name (FieldParam, FieldPrompt).
	Name string
}

// ParamField names the parameter name.
func ParamField(name string) Field { return Field{Kind: FieldParam, Name: name} }

// PromptField names the prompt name of action (name "": the whole action).
func PromptField(action, name string) Field {
	return Field{Kind: FieldPrompt, Action: action, Name: name}
}

// FormKey is the field's key in the pages' forms and the REST API's
// problems: name, namespace, team, driver_version, app_version, revision, confirm, parameters,
// param.<name>, prompt.<action>.<name> and prompt.<action>.
func (f Field) FormKey() string {
	switch {
	case f.Kind == FieldParam:
		return "param." + f.Name
	case f.Kind == FieldPrompt && f.Name == "":
		return "prompt." + f.Action
	case f.Kind == FieldPrompt:
		return "prompt." + f.Action + "." + f.Name
	}
	return string(f.Kind)
}

// FieldError is what is wrong with one input.
type FieldError struct {
	Field   Field
	Message string
}

// InvalidError refuses an operation's inputs, each bad one with its
// message. Its code is EINVALID: it unwraps to the styrmin.Error whose
// Fields are keyed by FormKey, which the handlers read.
type InvalidError struct {
	Fields []FieldError
}

// InvalidFields is the message of an EINVALID error whose messages are all
// per field: a form marks the fields, the API lists them.
const InvalidFields = "Some values need fixing; see the marked fields."

// Error returns the summary, InvalidFields.
func (e *InvalidError) Error() string { return InvalidFields }

// Unwrap returns the error as a styrmin.Error with the messages keyed by
// FormKey, so that styrmin.ErrorCode, ErrorMessage and ErrorFields read it.
func (e *InvalidError) Unwrap() error {
	return &styrmin.Error{Code: styrmin.EINVALID, Message: InvalidFields, Fields: e.FormFields()}
}

// FormFields returns the messages keyed by each field's FormKey.
func (e *InvalidError) FormFields() map[string]string {
	out := make(map[string]string, len(e.Fields))
	for _, f := range e.Fields {
		out[f.Field.FormKey()] = f.Message
	}
	return out
}

// fieldErrors collects the field errors of an operation's check. Values of
// a shape no parameter takes (see ReadJSON) are refused before any value is
// checked: when there are such errors, they are the only ones reported.
type fieldErrors struct {
	list, shape []FieldError
}

// add records message for field.
func (f *fieldErrors) add(field Field, message string) {
	f.list = append(f.list, FieldError{Field: field, Message: message})
}

// addShape records message for field, whose value is of a shape no
// parameter takes.
func (f *fieldErrors) addShape(field Field, message string) {
	f.shape = append(f.shape, FieldError{Field: field, Message: message})
}

// addRead records what a reader found wrong (name → message; shape: the
// values are of a shape no parameter takes) for the fields field names.
func (f *fieldErrors) addRead(bad map[string]string, shape bool, field func(name string) Field) {
	for _, name := range slices.Sorted(maps.Keys(bad)) {
		if shape {
			f.addShape(field(name), bad[name])
		} else {
			f.add(field(name), bad[name])
		}
	}
}

// has reports whether an input of kind has an error.
func (f *fieldErrors) has(kind FieldKind) bool {
	return slices.ContainsFunc(f.list, func(e FieldError) bool { return e.Field.Kind == kind })
}

// err is the InvalidError of the collected errors, nil when there are none.
func (f *fieldErrors) err() error {
	switch {
	case len(f.shape) > 0:
		return &InvalidError{Fields: f.shape}
	case len(f.list) > 0:
		return &InvalidError{Fields: f.list}
	}
	return nil
}
