package main

// The corpus's form of a CEL value: one JSON object with one key naming the type, so that a
// reader in any language can compare values without knowing cel-go. This file is also copied
// into the packages whose tests are read (see hook.go.txt), where it encodes the expected
// values of Kubernetes' tables; it must only import what those packages can import.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// celJSON encodes a CEL value: {"int": "1"}, {"double": 1.5}, {"list": [...]}, {"map": [[k, v]]}
// (entries sorted by key), {"quantity": "12Mi", "decimal": "12582912"}, {"optional": v} or
// {"optionalNone": true}, {"error": "..."}; see packages/cel/test/corpus/README.md for the whole list.
func celJSON(v ref.Val) any {
	switch x := v.(type) {
	case nil:
		return map[string]any{"nothing": true}
	case types.Bool:
		return map[string]any{"bool": bool(x)}
	case types.Int:
		return map[string]any{"int": strconv.FormatInt(int64(x), 10)}
	case types.Uint:
		return map[string]any{"uint": strconv.FormatUint(uint64(x), 10)}
	case types.Double:
		return map[string]any{"double": floatJSON(float64(x))}
	case types.String:
		return map[string]any{"string": string(x)}
	case types.Bytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString([]byte(x))}
	case types.Null:
		return map[string]any{"null": true}
	case types.Duration:
		return map[string]any{"duration": durationJSON(x.Duration)}
	case types.Timestamp:
		return map[string]any{"timestamp": x.Time.UTC().Format(time.RFC3339Nano)}
	case *types.Optional:
		if x.HasValue() {
			return map[string]any{"optional": celJSON(x.GetValue())}
		}
		return map[string]any{"optionalNone": true}
	case *types.Type:
		return map[string]any{"type": x.TypeName()}
	case *types.Err:
		return map[string]any{"error": x.Error()}
	case *types.Unknown:
		return map[string]any{"unknown": true}
	case apiservercel.Quantity:
		return map[string]any{"quantity": x.Quantity.String(), "decimal": x.Quantity.AsDec().String()}
	case apiservercel.IP:
		return map[string]any{"ip": x.Addr.String()}
	case apiservercel.CIDR:
		return map[string]any{"cidr": x.Prefix.String()}
	case apiservercel.Semver:
		return map[string]any{"semver": x.Version.String()}
	case apiservercel.URL:
		return map[string]any{"url": x.URL.String()}
	case apiservercel.Format:
		return map[string]any{"format": x.Name}
	}
	if m, ok := v.(traits.Mapper); ok {
		type entry struct {
			key  string
			k, v any
		}
		var entries []entry
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			kj := celJSON(k)
			b, _ := json.Marshal(kj)
			entries = append(entries, entry{string(b), kj, celJSON(m.Get(k))})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
		out := []any{}
		for _, e := range entries {
			out = append(out, []any{e.k, e.v})
		}
		return map[string]any{"map": out}
	}
	if l, ok := v.(traits.Lister); ok {
		out := []any{}
		for it := l.Iterator(); it.HasNext() == types.True; {
			out = append(out, celJSON(it.Next()))
		}
		return map[string]any{"list": out}
	}
	return map[string]any{"other": v.Type().TypeName(), "text": fmt.Sprint(v.Value())}
}

// floatJSON: a finite double as a JSON number that reads back to the same double; NaN and the
// infinities as strings.
func floatJSON(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// durationJSON: seconds with up to nine decimals, as protobuf's JSON form writes a Duration ("1.5s").
func durationJSON(d time.Duration) string {
	sign := ""
	n := int64(d)
	if n < 0 {
		sign = "-"
		n = -n
	}
	s := strconv.FormatInt(n/1e9, 10)
	if frac := n % 1e9; frac != 0 {
		f := fmt.Sprintf("%09d", frac)
		for f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s += "." + f
	}
	return sign + s + "s"
}
