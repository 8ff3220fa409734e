package remote

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// The owner's socket carries core's own structs as JSON, and their list fields are
// `omitempty`, the form Codex sees: encoding/json leaves out an empty list as it leaves out a
// missing one. In process the two differ — finalize with approved_review_criteria: [] approves
// none; without the field it is refused as "required" — so a request that crossed the socket
// must keep the difference, or an attached front end cannot say "none". keepEmptyLists writes
// every non-nil empty slice (and map) of a message under an omitempty field as [] ({}), which
// encoding/json on the other side reads back as empty, not nil. Nothing else of the JSON form
// changes, so a peer of the same protocol without this reads the messages as before.

// keepEmptyLists returns b, the JSON of v, with v's empty lists under omitempty put back.
func keepEmptyLists(b []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !mayHoldEmpty(rv.Type()) || !holdsEmpty(rv) {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers go back out as they came
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	putEmpty(rv, tree)
	return json.Marshal(tree)
}

// jsonField is one field of a struct's JSON form.
type jsonField struct {
	index     []int
	name      string
	omitempty bool
	inline    bool // an embedded struct without a name: its fields are the parent's
}

var fieldCache sync.Map // reflect.Type → []jsonField

func jsonFields(t reflect.Type) []jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField)
	}
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case sf.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			out = append(out, jsonField{index: sf.Index, inline: true})
			continue
		case !sf.IsExported():
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, jsonField{index: sf.Index, name: name, omitempty: hasOpt(opts, "omitempty")})
	}
	fieldCache.Store(t, out)
	return out
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// ownJSON reports a type that writes its own JSON (time.Time, json.RawMessage, …): it is not
// a projection of its fields and is left as it is.
func ownJSON(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

var mayHoldCache sync.Map // reflect.Type → bool

// mayHoldEmpty reports whether a value of t can hold an omitempty slice or map at all, so that
// the messages that cannot (most replies) cost one lookup.
func mayHoldEmpty(t reflect.Type) bool {
	if v, ok := mayHoldCache.Load(t); ok {
		return v.(bool)
	}
	v := mayHold(t, map[reflect.Type]bool{})
	mayHoldCache.Store(t, v)
	return v
}

func mayHold(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a cycle adds nothing its first visit did not find
	}
	seen[t] = true
	if ownJSON(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return t.Elem().Kind() != reflect.Uint8 && mayHold(t.Elem(), seen)
	case reflect.Map:
		return mayHold(t.Elem(), seen)
	case reflect.Interface:
		return true // whatever it holds is looked at by value
	case reflect.Struct:
		for _, f := range jsonFields(t) {
			ft := t.FieldByIndex(f.index).Type
			if f.omitempty && isList(ft) {
				return true
			}
			if mayHold(ft, seen) {
				return true
			}
		}
	}
	return false
}

// isList is a kind encoding/json omits when empty and that is not a string in disguise.
func isList(t reflect.Type) bool {
	return (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8) || t.Kind() == reflect.Map
}

// emptyUnder reports a list field encoding/json left out though it was there, empty.
func emptyUnder(f jsonField, v reflect.Value) bool {
	return f.omitempty && isList(v.Type()) && !v.IsNil() && v.Len() == 0 && !ownJSON(v.Type())
}

// holdsEmpty reports whether v holds a non-nil empty list under an omitempty field.
func holdsEmpty(v reflect.Value) bool {
	found := false
	walkEmpty(v, func(reflect.Value, jsonField) { found = true })
	return found
}

// walkEmpty calls at for every struct (and field) of v whose field is an empty list that
// encoding/json left out.
func walkEmpty(v reflect.Value, at func(reflect.Value, jsonField)) {
	if !v.IsValid() || !mayHoldEmpty(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkEmpty(v.Elem(), at)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkEmpty(v.Index(i), at)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walkEmpty(it.Value(), at)
		}
	case reflect.Struct:
		for _, f := range jsonFields(v.Type()) {
			fv, ok := fieldOf(v, f)
			if !ok {
				continue
			}
			if emptyUnder(f, fv) {
				at(v, f)
			} else {
				walkEmpty(fv, at)
			}
		}
	}
}

// fieldOf is v's field f, or false when an embedded pointer on the way is nil.
func fieldOf(v reflect.Value, f jsonField) (reflect.Value, bool) {
	fv, err := v.FieldByIndexErr(f.index)
	return fv, err == nil
}

// putEmpty walks v and its decoded JSON node together, adding [] or {} where v has an empty
// list that the JSON left out.
func putEmpty(v reflect.Value, node any) {
	if !v.IsValid() || node == nil || !mayHoldEmpty(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			putEmpty(v.Elem(), node)
		}
	case reflect.Slice, reflect.Array:
		if arr, ok := node.([]any); ok {
			for i := range min(v.Len(), len(arr)) {
				putEmpty(v.Index(i), arr[i])
			}
		}
	case reflect.Map:
		obj, ok := node.(map[string]any)
		if !ok || v.Type().Key().Kind() != reflect.String {
			return
		}
		for it := v.MapRange(); it.Next(); {
			putEmpty(it.Value(), obj[it.Key().String()])
		}
	case reflect.Struct:
		obj, ok := node.(map[string]any)
		if !ok {
			return
		}
		for _, f := range jsonFields(v.Type()) {
			fv, ok := fieldOf(v, f)
			switch {
			case !ok:
			case f.inline:
				putEmpty(fv, obj)
			case emptyUnder(f, fv):
				if _, there := obj[f.name]; !there {
					if fv.Kind() == reflect.Map {
						obj[f.name] = map[string]any{}
					} else {
						obj[f.name] = []any{}
					}
				}
			default:
				putEmpty(fv, obj[f.name])
			}
		}
	}
}
