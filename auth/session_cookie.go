package auth

import (
	"encoding/json"
	"fmt"

	"github.com/gorilla/securecookie"
)

// cookieContent is what the session cookie carries, before it is encrypted
// and signed: the keys of Load and Save, as compact JSON.
type cookieContent struct {
	SID   string   `json:"s,omitempty"`
	CSRF  string   `json:"c,omitempty"`
	Flash []string `json:"f,omitempty"`
}

// cookieSerializer encodes the session cookie's values as JSON: gob, the
// default, sends its type definitions in every cookie and compiles a decoder
// for each, which cost more than the rest of a signed-in request. It reads
// the values of cookies written with gob before, too. It only ever sees
// values that passed the cookie's signature check.
type cookieSerializer struct{}

var _ securecookie.Serializer = cookieSerializer{}

// Serialize encodes the session values (a map[any]any) of Save.
func (cookieSerializer) Serialize(src any) ([]byte, error) {
	values, ok := src.(map[any]any)
	if !ok {
		return nil, fmt.Errorf("auth: session cookie values are a %T, not a map", src)
	}
	var c cookieContent
	c.SID, _ = values["sid"].(string)
	c.CSRF, _ = values["csrf"].(string)
	c.Flash, _ = values["flash"].([]string)
	return json.Marshal(c)
}

// Deserialize decodes session values into dst, a *map[any]any.
func (cookieSerializer) Deserialize(src []byte, dst any) error {
	values, ok := dst.(*map[any]any)
	if !ok {
		return fmt.Errorf("auth: session cookie values go into a %T, not a map", dst)
	}
	var c cookieContent
	if len(src) == 0 || src[0] != '{' || json.Unmarshal(src, &c) != nil {
		return securecookie.GobEncoder{}.Deserialize(src, dst)
	}
	if *values == nil {
		*values = map[any]any{}
	}
	if c.SID != "" {
		(*values)["sid"] = c.SID
	}
	if c.CSRF != "" {
		(*values)["csrf"] = c.CSRF
	}
	if len(c.Flash) > 0 {
		(*values)["flash"] = c.Flash
	}
	return nil
}
