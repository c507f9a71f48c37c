package main

// cel-spec's conformance data (cel.dev/expr tests/simple/testdata), for the parts of CEL that
// Kubernetes rules use. Each test is also compiled and run by cel-go in the environment the API
// server gives new CRD rules (k8s.io/apiserver's base environment, NewExpressions): that is the
// verdict a rule gets, so it is the case's expectation; where it differs from cel-spec's (a
// function Kubernetes does not enable, an option that changes a result), cel-spec's is kept
// beside it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	celpb "cel.dev/expr"
	conformance "cel.dev/expr/conformance/test"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"google.golang.org/protobuf/encoding/prototext"
	"k8s.io/apiserver/pkg/cel/environment"

	// message types the data files name in google.protobuf.Any values
	_ "cel.dev/expr/conformance/proto2"
	_ "cel.dev/expr/conformance/proto3"
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// The data files read: the core language and the extensions Kubernetes enables. Left out:
// protobuf messages (proto2, proto3, enums, wrappers, dynamic, proto2_ext), extensions
// Kubernetes does not enable (math_ext, encoders_ext, bindings_ext, block_ext), namespaces,
// type deduction, unknowns (partial evaluation).
var celSpecFiles = []string{"basic", "comparisons", "conversions", "fields", "fp_math", "integer_math", "lists", "logic", "macros", "macros2", "optionals", "parse", "plumbing", "string", "string_ext", "timestamps"}

func celSpecCorpus(dir, version string) (*corpus, error) {
	mod := "cel.dev/expr@" + version
	c := &corpus{
		File:      "cel-spec.json",
		Source:    mod + " tests/simple/testdata (github.com/google/cel-spec)",
		Generator: "packages/cel/test/oracle/celcorpus (go run .)",
		Note:      "expect: what cel-go gives in the API server's environment for new CRD rules (k8s.io/apiserver base environment); celSpec: the data file's own expectation where it differs",
	}
	base, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Env(environment.NewExpressions)
	if err != nil {
		return nil, err
	}
	disagree := 0
	for _, name := range celSpecFiles {
		path := filepath.Join(dir, "tests/simple/testdata", name+".textproto")
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var file conformance.SimpleTestFile
		if err := prototext.Unmarshal(text, &file); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		lines := testLines(text)
		rel := mod + "/tests/simple/testdata/" + name + ".textproto"
		seen := map[string]int{} // a data file may repeat a test's name within a section
		for _, sec := range file.Section {
			for _, t := range sec.Test {
				key := sec.Name + "/" + t.Name
				seen[key]++
				line := 0
				if ls := lines[key]; len(ls) >= seen[key] {
					line = ls[seen[key]-1]
				}
				where := fmt.Sprintf("%s:%d", rel, line)
				id := "cel-spec/" + name + "/" + key
				if seen[key] > 1 {
					id += fmt.Sprintf("#%d", seen[key])
				}
				if reason := celSpecIrrelevant(t); reason != "" {
					c.exclude(rel, 1, reason)
					continue
				}
				cs := map[string]any{"id": id, "source": where, "kind": "expr", "expr": t.Expr}
				env := base
				decls := map[string]any{}
				for _, d := range t.TypeEnv {
					opt, err := cel.ProtoAsDeclaration(d)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", where, err)
					}
					if env, err = env.Extend(opt); err != nil {
						return nil, fmt.Errorf("%s: %w", where, err)
					}
					if id := d.GetIdent(); id != nil {
						decls[d.Name] = typeString(id.Type)
					}
				}
				if len(decls) > 0 {
					cs["decls"] = decls
				}
				activation := map[string]any{}
				if len(t.Bindings) > 0 {
					bindings := map[string]any{}
					for k, v := range t.Bindings {
						val, err := cel.ProtoAsValue(env.CELTypeAdapter(), v.GetValue())
						if err != nil {
							return nil, fmt.Errorf("%s: binding %s: %w", where, k, err)
						}
						activation[k] = val
						bindings[k] = celJSON(val)
					}
					cs["bindings"] = bindings
				}
				if t.DisableCheck {
					cs["disableCheck"] = true
				}
				spec, err := celSpecExpect(t, env)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
				got := k8sOutcome(env, t.Expr, t.DisableCheck, activation)
				cs["expect"] = got
				if !sameOutcome(got, spec) {
					cs["celSpec"] = spec
					disagree++
				}
				c.add(cs)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "celcorpus: cel-spec: %d cases where cel-go in the Kubernetes environment differs from the data file\n", disagree)
	return c, nil
}

// celSpecIrrelevant: why a conformance test says nothing about Kubernetes rules ("" when it does).
func celSpecIrrelevant(t *conformance.SimpleTest) string {
	switch {
	case t.Container != "":
		return "protobuf messages (a test container)"
	case t.DisableMacros:
		return "macros disabled (the API server always expands them)"
	case t.CheckOnly:
		return "type checking only (a deduced type, no value)"
	}
	switch t.ResultMatcher.(type) {
	case *conformance.SimpleTest_Unknown, *conformance.SimpleTest_AnyUnknowns:
		return "unknowns (partial evaluation)"
	}
	for _, d := range t.TypeEnv {
		if d.GetFunction() != nil {
			return "functions declared by the test"
		}
		if hasMessageType(d.GetIdent().GetType()) {
			return "protobuf messages (a variable of a message type)"
		}
	}
	b, _ := prototext.Marshal(t)
	s := string(b)
	for _, m := range []string{"TestAllTypes", "NestedMessage", "google.protobuf.Any", "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value", "DoubleValue", "FloatValue", "BoolValue", "StringValue", "BytesValue", "google.protobuf.NullValue", "GlobalEnum", "enum_value"} {
		if strings.Contains(s, m) {
			return "protobuf messages, wrappers or enums"
		}
	}
	return ""
}

func hasMessageType(t *celpb.Type) bool {
	if t == nil {
		return false
	}
	switch k := t.TypeKind.(type) {
	case *celpb.Type_MessageType:
		return k.MessageType != "google.protobuf.Timestamp" && k.MessageType != "google.protobuf.Duration"
	case *celpb.Type_ListType_:
		return hasMessageType(k.ListType.ElemType)
	case *celpb.Type_MapType_:
		return hasMessageType(k.MapType.KeyType) || hasMessageType(k.MapType.ValueType)
	case *celpb.Type_Wrapper:
		return true
	}
	return false
}

// typeString: cel-go's spelling of a declared type (int, list(string), map(string, dyn)).
func typeString(t *celpb.Type) string {
	switch k := t.GetTypeKind().(type) {
	case *celpb.Type_Primitive:
		switch k.Primitive {
		case celpb.Type_BOOL:
			return "bool"
		case celpb.Type_INT64:
			return "int"
		case celpb.Type_UINT64:
			return "uint"
		case celpb.Type_DOUBLE:
			return "double"
		case celpb.Type_STRING:
			return "string"
		case celpb.Type_BYTES:
			return "bytes"
		}
	case *celpb.Type_Dyn:
		return "dyn"
	case *celpb.Type_Null:
		return "null_type"
	case *celpb.Type_ListType_:
		return "list(" + typeString(k.ListType.ElemType) + ")"
	case *celpb.Type_MapType_:
		return "map(" + typeString(k.MapType.KeyType) + ", " + typeString(k.MapType.ValueType) + ")"
	case *celpb.Type_MessageType:
		switch k.MessageType {
		case "google.protobuf.Timestamp":
			return "timestamp"
		case "google.protobuf.Duration":
			return "duration"
		}
	case *celpb.Type_WellKnown:
		switch k.WellKnown {
		case celpb.Type_TIMESTAMP:
			return "timestamp"
		case celpb.Type_DURATION:
			return "duration"
		}
	case *celpb.Type_Type:
		return "type"
	}
	return "dyn"
}

// celSpecExpect: the data file's expectation, as an outcome.
func celSpecExpect(t *conformance.SimpleTest, env *cel.Env) (map[string]any, error) {
	value := func(v *celpb.Value) (map[string]any, error) {
		val, err := cel.ProtoAsValue(env.CELTypeAdapter(), v)
		if err != nil {
			return nil, err
		}
		return map[string]any{"value": celJSON(val)}, nil
	}
	switch m := t.ResultMatcher.(type) {
	case nil:
		return map[string]any{"value": map[string]any{"bool": true}}, nil
	case *conformance.SimpleTest_Value:
		return value(m.Value)
	case *conformance.SimpleTest_TypedResult:
		return value(m.TypedResult.Result)
	case *conformance.SimpleTest_EvalError:
		var msgs []string
		for _, e := range m.EvalError.GetErrors() {
			msgs = append(msgs, e.GetMessage())
		}
		return map[string]any{"evalError": "", "message": strings.Join(msgs, "; ")}, nil
	case *conformance.SimpleTest_AnyEvalErrors:
		return map[string]any{"evalError": ""}, nil
	}
	return nil, fmt.Errorf("unsupported result matcher %T", t.ResultMatcher)
}

// k8sOutcome: what cel-go does with the expression in the Kubernetes environment.
func k8sOutcome(env *cel.Env, expr string, disableCheck bool, activation map[string]any) (out map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			out = map[string]any{"evalError": "", "message": fmt.Sprint(r)}
		}
	}()
	var ast *cel.Ast
	var iss *cel.Issues
	if disableCheck {
		ast, iss = env.Parse(expr)
	} else {
		ast, iss = env.Compile(expr)
	}
	if iss.Err() != nil {
		return map[string]any{"compileError": iss.Err().Error()}
	}
	prg, err := env.Program(ast)
	if err != nil {
		return map[string]any{"compileError": err.Error()}
	}
	res, _, err := prg.Eval(activation)
	if err != nil {
		// CEL does not specify error messages: any error will do, cel-go's is kept for the reader
		return map[string]any{"evalError": "", "message": err.Error()}
	}
	return map[string]any{"value": celJSON(res.(ref.Val))}
}

// sameOutcome: the same value, or both an evaluation error (their wording is not specified).
func sameOutcome(a, b map[string]any) bool {
	if _, ok := a["evalError"]; ok {
		_, ok2 := b["evalError"]
		return ok2
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// testLines: the lines of the tests in a data file, by "section/test" (in order: names repeat).
func testLines(text []byte) map[string][]int {
	out := map[string][]int{}
	section := ""
	inTest := false
	for i, line := range strings.Split(string(text), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "section") {
			section, inTest = "", false
		}
		if strings.HasPrefix(l, "test") && strings.Contains(l, "{") {
			inTest = true
		}
		if strings.HasPrefix(l, "name:") {
			name := strings.Trim(strings.TrimSpace(strings.TrimPrefix(l, "name:")), `"'`)
			if section == "" && !inTest {
				section = name
			} else if inTest {
				out[section+"/"+name] = append(out[section+"/"+name], i+1)
				inTest = false
			}
		}
	}
	return out
}
