// Reads a corpus (JSON on stdin) and prints apimachinery's answers (JSON on stdout), one answer
// per input in the same order. Map iteration in Go is random, so the error lists of inputs with
// maps (label sets, annotations, matchLabels) are sorted, here and in the test.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type corpus struct {
	Selectors        []string                `json:"selectors"`
	LabelSets        []map[string]string     `json:"labelSets"`
	LabelSelectors   []*metav1.LabelSelector `json:"labelSelectors"`
	Names            []string                `json:"names"`
	Annotations      []map[string]string     `json:"annotations"`
	Labels           []map[string]string     `json:"labels"`
	SelectorsToCheck []*metav1.LabelSelector `json:"selectorsToCheck"`
	FieldErrors      [][]fieldErrorSpec      `json:"fieldErrors"`
	UnixMicros       []int64                 `json:"unixMicros"`
	TimeStrings      []string                `json:"timeStrings"`
}

type fieldErrorSpec struct {
	Type   string          `json:"type"`
	Path   []pathStep      `json:"path"`
	Value  json.RawMessage `json:"value"`
	Detail string          `json:"detail"`
	Valid  []string        `json:"valid"`
	Max    int             `json:"max"`
}

// A path step: {"child": "spec"}, {"index": 0} or {"key": "k"}; the first is the root name.
type pathStep struct {
	Child *string `json:"child"`
	Index *int    `json:"index"`
	Key   *string `json:"key"`
}

type selectorAnswer struct {
	Error   *string `json:"error,omitempty"`
	String  *string `json:"string,omitempty"`
	Empty   *bool   `json:"empty,omitempty"`
	Matches string  `json:"matches,omitempty"`
}

type nameAnswer struct {
	DNS1123Label     []string `json:"dns1123Label"`
	DNS1123Subdomain []string `json:"dns1123Subdomain"`
	DNS1035Label     []string `json:"dns1035Label"`
	QualifiedName    []string `json:"qualifiedName"`
	LabelValue       []string `json:"labelValue"`
}

type fieldErrorsAnswer struct {
	Errors    []string `json:"errors"`
	Bodies    []string `json:"bodies"`
	Aggregate string   `json:"aggregate"`
}

// A time as metav1.Time and as metav1.MicroTime write it (JSON), or "error" where Go's parse
// refuses the string (the verdict is compared, not Go's time-parsing message).
type timeAnswer struct {
	Time  string `json:"time"`
	Micro string `json:"micro"`
}

type answers struct {
	Selectors        []selectorAnswer    `json:"selectors"`
	LabelSelectors   []selectorAnswer    `json:"labelSelectors"`
	Names            []nameAnswer        `json:"names"`
	Annotations      [][]string          `json:"annotations"`
	Labels           [][]string          `json:"labels"`
	SelectorsToCheck [][]string          `json:"selectorsToCheck"`
	FieldErrors      []fieldErrorsAnswer `json:"fieldErrors"`
	UnixMicros       []timeAnswer        `json:"unixMicros"`
	TimeStrings      []timeAnswer        `json:"timeStrings"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedErrors(list field.ErrorList) []string {
	out := []string{}
	for _, e := range list {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

func answerSelector(sel labels.Selector, err error, sets []map[string]string) selectorAnswer {
	if err != nil {
		msg := err.Error()
		return selectorAnswer{Error: &msg}
	}
	s := sel.String()
	empty := sel.Empty()
	var m strings.Builder
	for _, set := range sets {
		if sel.Matches(labels.Set(set)) {
			m.WriteByte('1')
		} else {
			m.WriteByte('0')
		}
	}
	return selectorAnswer{String: &s, Empty: &empty, Matches: m.String()}
}

func buildPath(steps []pathStep) *field.Path {
	var p *field.Path
	for i, s := range steps {
		switch {
		case s.Child != nil && i == 0:
			p = field.NewPath(*s.Child)
		case s.Child != nil:
			p = p.Child(*s.Child)
		case s.Index != nil:
			p = p.Index(*s.Index)
		case s.Key != nil:
			p = p.Key(*s.Key)
		}
	}
	return p
}

// A JSON value as a webhook holds it in Go: integers as int64, other numbers as float64,
// strings, bools, and the rest as decoded (maps, slices, nil).
func goValue(raw json.RawMessage) interface{} {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}

func buildError(s fieldErrorSpec) *field.Error {
	p := buildPath(s.Path)
	v := goValue(s.Value)
	switch s.Type {
	case "required":
		return field.Required(p, s.Detail)
	case "invalid":
		return field.Invalid(p, v, s.Detail)
	case "typeInvalid":
		return field.TypeInvalid(p, v, s.Detail)
	case "notSupported":
		return field.NotSupported(p, v, s.Valid)
	case "forbidden":
		return field.Forbidden(p, s.Detail)
	case "duplicate":
		return field.Duplicate(p, v)
	case "tooLong":
		return field.TooLong(p, v, s.Max)
	case "tooMany":
		n, _ := v.(int64)
		return field.TooMany(p, int(n), s.Max)
	case "notFound":
		return field.NotFound(p, v)
	}
	panic("unknown field error type " + s.Type)
}

func main() {
	var c corpus
	if err := json.NewDecoder(os.Stdin).Decode(&c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var a answers
	for _, s := range c.Selectors {
		sel, err := labels.Parse(s)
		a.Selectors = append(a.Selectors, answerSelector(sel, err, c.LabelSets))
	}
	for _, ps := range c.LabelSelectors {
		sel, err := metav1.LabelSelectorAsSelector(ps)
		a.LabelSelectors = append(a.LabelSelectors, answerSelector(sel, err, c.LabelSets))
	}
	for _, n := range c.Names {
		a.Names = append(a.Names, nameAnswer{
			DNS1123Label:     nonNil(validation.IsDNS1123Label(n)),
			DNS1123Subdomain: nonNil(validation.IsDNS1123Subdomain(n)),
			DNS1035Label:     nonNil(validation.IsDNS1035Label(n)),
			QualifiedName:    nonNil(validation.IsQualifiedName(n)),
			LabelValue:       nonNil(validation.IsValidLabelValue(n)),
		})
	}
	for _, m := range c.Annotations {
		a.Annotations = append(a.Annotations, sortedErrors(apivalidation.ValidateAnnotations(m, field.NewPath("metadata", "annotations"))))
	}
	for _, m := range c.Labels {
		a.Labels = append(a.Labels, sortedErrors(metav1validation.ValidateLabels(m, field.NewPath("metadata", "labels"))))
	}
	for _, ps := range c.SelectorsToCheck {
		a.SelectorsToCheck = append(a.SelectorsToCheck, sortedErrors(metav1validation.ValidateLabelSelector(ps, metav1validation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector"))))
	}
	for _, specs := range c.FieldErrors {
		var list field.ErrorList
		ans := fieldErrorsAnswer{Errors: []string{}, Bodies: []string{}}
		for _, s := range specs {
			e := buildError(s)
			list = append(list, e)
			ans.Errors = append(ans.Errors, e.Error())
			ans.Bodies = append(ans.Bodies, e.ErrorBody())
		}
		if agg := list.ToAggregate(); agg != nil {
			ans.Aggregate = agg.Error()
		}
		a.FieldErrors = append(a.FieldErrors, ans)
	}
	for _, us := range c.UnixMicros {
		t := time.UnixMicro(us)
		tj, _ := json.Marshal(metav1.NewTime(t))
		mj, _ := json.Marshal(metav1.NewMicroTime(t))
		a.UnixMicros = append(a.UnixMicros, timeAnswer{Time: string(tj), Micro: string(mj)})
	}
	for _, s := range c.TimeStrings {
		q, _ := json.Marshal(s)
		var t metav1.Time
		var m metav1.MicroTime
		ans := timeAnswer{Time: "error", Micro: "error"}
		if err := json.Unmarshal(q, &t); err == nil {
			tj, _ := json.Marshal(t)
			ans.Time = string(tj)
		}
		if err := json.Unmarshal(q, &m); err == nil {
			mj, _ := json.Marshal(m)
			ans.Micro = string(mj)
		}
		a.TimeStrings = append(a.TimeStrings, ans)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
