package api

import (
	"encoding/base64"
	"encoding/json"

	"github.com/styrmin/styrmin"
)

// The API's lists come in pages: at most limit items, and an opaque cursor
// that names where the next page starts ("" after the last page).
const (
	// apiDefaultLimit is a page's size when the request names none.
	apiDefaultLimit = 50
	// apiMaxLimit is the largest page a request may ask for (api/openapi.yaml says the same).
	apiMaxLimit = 200
)

// pageLimit is the page size a list request asks for, within bounds.
func pageLimit(limit *int) int {
	if limit == nil || *limit < 1 {
		return apiDefaultLimit
	}
	return min(*limit, apiMaxLimit)
}

// encodeCursor turns the key of the last item of a page into the opaque
// cursor of the next page.
func encodeCursor(key any) string {
	b, err := json.Marshal(key)
	if err != nil {
		panic("api: a page cursor that cannot be encoded: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor into key; no cursor leaves key as it is. A
// cursor this API did not give out is an EINVALID error.
func decodeCursor(cursor *string, key any) error {
	if cursor == nil || *cursor == "" {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*cursor)
	if err == nil {
		err = json.Unmarshal(b, key)
	}
	if err != nil {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: "The cursor is not one this list gave out: pass the next_cursor of the previous page, or none for the first page.",
			Fields: map[string]string{"cursor": "not a cursor of this list"}}
	}
	return nil
}
